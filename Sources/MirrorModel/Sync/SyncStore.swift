import Foundation

/// What a sync needs of the store it writes: the contract between the sync
/// engine (`SyncEngine`, `GitBootstrap`) and each store backend, in the shape
/// of River's one queue API over one driver per database. Domain values in,
/// domain values out — never a row, a statement or a transaction: a backend
/// decides how a page and its checkpoint become one atomic write.
///
/// Each backend conforms: the SQLite store (`MirrorStore`, MirrorSQLite) and
/// the PostgreSQL store (`PostgreSQLStore`, MirrorPostgreSQL). A conforming
/// store is used by one task at a time (a sync owns its connection).
public protocol SyncStore: RepositoryRecords, TagRecords, PullRequestRecords {
    func commitCount(repositoryID: Int64?) throws -> Int
    /// Commits of the repository whose changed paths are not stored yet.
    func commitsWithoutChanges(repositoryID: Int64) throws -> Int

    // MARK: Sync state

    func syncState(repositoryID: Int64, branch: String) throws -> SyncState?
    func recordAttempt(repositoryID: Int64, branch: String, at date: Date) throws
    func recordSuccess(
        repositoryID: Int64, branch: String, headSHA: String?, headETag: String?,
        complete: Bool, rateLimit: RateLimitStatus?, at date: Date) throws
    func recordFailure(repositoryID: Int64, branch: String, message: String, rateLimit: RateLimitStatus?) throws
    func forgetBranchNeverSynced(repositoryID: Int64, branch: String) throws
    /// Marks a branch GitHub no longer has as gone since `date` (its commits, sync
    /// state and rows are kept; its next successful sync makes it active again).
    /// Returns whether it was active until now.
    @discardableResult
    func markBranchGone(repositoryID: Int64, branch: String, at date: Date) throws -> Bool

    // MARK: Walks

    /// Unfinished walks of the branch, newest first (the order they resume in).
    func pendingWalks(repositoryID: Int64, branch: String) throws -> [Walk]
    func beginWalk(repositoryID: Int64, branch: String, headSHA: String) throws -> Walk
    /// A walk whose frontier is every parent the branch's commits name but the store lacks.
    func beginRepairWalk(repositoryID: Int64, branch: String, headSHA: String) throws -> Walk
    func finishWalk(_ walk: Walk) throws
    /// Whether another branch of the repository has a walk under way (its pages
    /// may hold commits whose parents are not stored yet).
    func hasPendingWalks(repositoryID: Int64, otherThan branch: String) throws -> Bool
    /// Drops walks pinned to heads the branch no longer reaches and marks what
    /// they stored off-branch, in one atomic write.
    func abandonWalks(_ walks: [Walk], repositoryID: Int64, heads: [String], at date: Date) throws -> BranchMarks
    /// Drops the walk's missing parents stored since; returns how many are still missing.
    func pruneFrontier(walkID: Int64, repositoryID: Int64) throws -> Int
    func frontierCount(walkID: Int64) throws -> Int
    func missingParents(walkID: Int64, limit: Int) throws -> [String]

    // MARK: Pages

    /// Runs `body` with its page writes gathered into atomic batches of
    /// `limits`; what is open commits when the scope ends, however it ends.
    func withBatches<T>(limits: BatchLimits, _ body: (any PageBatches) async throws -> T) async throws -> T

    // MARK: History

    func isAncestor(_ ancestor: String, of descendant: String) throws -> Bool
    func otherBranchHeads(repositoryID: Int64, excluding branch: String) throws -> [String]
    func hasOffBranchCommits(repositoryID: Int64) throws -> Bool
    /// Whether `sha` is stored with every commit it reaches: it is in the rows of
    /// one of the repository's branches recorded complete (and not gone).
    func holdsWholeHistory(of sha: String, repositoryID: Int64) throws -> Bool
    /// After a confirmed rewrite: marks the commits no head reaches (kept, hidden), unmarks those reached again.
    func markOffBranch(repositoryID: Int64, heads: [String], at date: Date) throws -> BranchMarks
}

/// The writes of one `SyncStore.withBatches` scope. Not to be kept past it.
public protocol PageBatches: AnyObject {
    /// Whether a batch is open, holding the store's write lock: commit it
    /// before waiting for the network.
    var isOpen: Bool { get }
    /// Stores a page and the walk's checkpoint after it, whole or not at all.
    func store(page: [Commit], repositoryID: Int64, walk: Walk, nextURL: String?, pagesTotal: Int?) throws -> StoredPage
    /// Stores commits read from git; a commit already stored keeps its row. Returns how many joined the repository.
    func storeFromGit(_ commits: [Commit], repositoryID: Int64) throws -> Int
    /// Commits the open batch now.
    func commit() throws
}

extension PageBatches {
    /// Runs `body` with these batches, the scope of every store's `withBatches`.
    /// When it ends — normally, by an error or by cancellation — what is open
    /// commits: every page in it was stored whole with its checkpoint. A failed
    /// final commit lost the open batch's pages (they are fetched again), so that
    /// store failure is the error thrown, whatever ended the scope.
    public func committingWhenDone<T>(_ body: (any PageBatches) async throws -> T) async throws -> T {
        let result: T
        do {
            result = try await body(self)
        } catch {
            try commit()
            throw error
        }
        try commit()
        return result
    }
}

/// When pages (or git batches) stop sharing one write transaction, and how
/// much the batches are expected to bring.
public struct BatchLimits: Sendable, Equatable {
    /// Pages per transaction.
    public var maximumPages: Int?
    /// Commits per transaction: what a kill costs when git writes the history.
    public var maximumCommits: Int?
    /// Longest a transaction stays open, so readers see progress.
    public var maximumDuration: Duration?
    /// About how many commits the batches will bring, when known (a git
    /// bootstrap, or the REST listing after it, knows it from the first page): a
    /// hint that lets a store index a load much larger than what it holds once
    /// at the end. Never a bound.
    public var expectedCommits: Int?

    public init(
        maximumPages: Int? = nil, maximumCommits: Int? = nil, maximumDuration: Duration? = nil, expectedCommits: Int? = nil
    ) {
        self.maximumPages = maximumPages
        self.maximumCommits = maximumCommits
        self.maximumDuration = maximumDuration
        self.expectedCommits = expectedCommits
    }

    /// Whether a batch holding `pages` pages and `commits` commits, open since `started`, is due to commit.
    public func isDue(pages: Int, commits: Int, openSince started: ContinuousClock.Instant) -> Bool {
        maximumPages.map { pages >= $0 } == true || maximumCommits.map { commits >= $0 } == true
            || maximumDuration.map { .now - started >= $0 } == true
    }
}

extension BatchLimits {
    /// Below this many expected commits a load into a store that holds some
    /// keeps its indexes: rebuilding them all would cost more than it saves.
    public static let minimumBulkLoad = 5_000

    /// Whether these batches, into a store holding `stored` commits, are cheaper
    /// with the store's secondary indexes built once at the end than updated row
    /// by row: the store is empty (unless the load is known to be small: the first
    /// page before a history is read over git), or the load is large and at least
    /// doubles it, so that a rebuild covers at most twice what the load adds. Each
    /// backend decides which of its indexes that concerns (BulkLoadIndexes).
    public func makeBulkLoad(intoStoreHolding stored: Int) -> Bool {
        let large = expectedCommits.map { $0 >= Self.minimumBulkLoad }
        return stored == 0 ? large != false : large == true && expectedCommits.map { $0 >= stored } == true
    }

    /// How far a bulk load leaves the message index behind the rows, on either
    /// store. Indexing the messages was most of a long first sync's time
    /// (docs/MEASURED-REASONS.md, "Measured reasons: the message index"), and nothing of
    /// the sync reads the index: so a load that leaves at least `lowerBound`
    /// commits unindexed returns without them, and the next writer to open the
    /// store (commitsd's next sync, the next `commitsctl sync`) indexes them. A
    /// smaller lag costs about a second or less, and is indexed before the load
    /// returns. A store that indexes in chunks during the load (SQLite) catches up
    /// once the lag reaches `upperBound`, so a search tests at most that many
    /// messages row by row, which stays well under a second.
    public static let messageIndexLagAfterBulkLoad = 20_000..<200_000
}

/// A page as stored: what it changed, and the walk's checkpoint after it.
public struct StoredPage: Sendable, Equatable {
    public var outcome: PageOutcome
    public var checkpoint: Walk

    public init(outcome: PageOutcome, checkpoint: Walk) {
        self.outcome = outcome
        self.checkpoint = checkpoint
    }
}

extension SyncStore {
    public func recordAttempt(repositoryID: Int64, branch: String) throws {
        try recordAttempt(repositoryID: repositoryID, branch: branch, at: Date())
    }

    public func recordSuccess(
        repositoryID: Int64, branch: String, headSHA: String?, headETag: String?, complete: Bool, rateLimit: RateLimitStatus?
    ) throws {
        try recordSuccess(
            repositoryID: repositoryID, branch: branch, headSHA: headSHA, headETag: headETag, complete: complete,
            rateLimit: rateLimit, at: Date())
    }

    public func abandonWalks(_ walks: [Walk], repositoryID: Int64, heads: [String]) throws -> BranchMarks {
        try abandonWalks(walks, repositoryID: repositoryID, heads: heads, at: Date())
    }

    public func markOffBranch(repositoryID: Int64, heads: [String]) throws -> BranchMarks {
        try markOffBranch(repositoryID: repositoryID, heads: heads, at: Date())
    }

    public func commitCount() throws -> Int { try commitCount(repositoryID: nil) }
}
