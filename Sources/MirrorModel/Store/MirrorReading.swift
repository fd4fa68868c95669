import Foundation

/// What the reading commands (`query`, `status`, `repos`, `show`, `authors`,
/// `stats`, `check`) and commitsd (its plan, metrics and `/readyz`) ask of a store,
/// whichever backend holds it: `MirrorReader` for a SQLite file, the
/// PostgreSQL driver's reader for a database (`StoreLocation.openCommitReader()`).
/// Every answer is a domain value, so the commands format both stores' answers
/// with the same code and print the same bytes.
///
/// A reader never writes. One reader is used by one task at a time.
public protocol MirrorReading: PathReading, TagReading, PullRequestReading {
    /// Where this reader reads, as every other part names a store.
    var location: StoreLocation { get }

    /// The repository known by `name` (current or former, any case).
    func repository(named name: RepositoryName) throws -> StoredRepository?
    /// Every repository, by current name (ASCII case ignored).
    func repositories() throws -> [StoredRepository]
    /// The listing of `owner` the last discovery recorded (by any process sharing the store), if any.
    func ownerListing(owner: String) throws -> OwnerListing?
    /// Active repositories whose current name is under `owner` (any case).
    func activeRepositories(ownedBy owner: String) throws -> [StoredRepository]
    /// Commits of one repository, or every commit in the store.
    func commitCount(repositoryID: Int64?) throws -> Int
    /// Every repository's branches (by name, then branch), or one repository's.
    func syncStates(repositoryID: Int64?) throws -> [SyncState]
    /// The names the repository was known by besides its current one (ASCII case ignored).
    func formerNames(of repositoryID: Int64) throws -> [String]
    /// Every repository the store holds, by current name.
    func repositoryOverviews() throws -> [RepositoryOverview]
    /// Every branch of a repository still mirrored (not gone or removed), with
    /// its head and when that was committed, for adaptive polling (`PollingPolicy`).
    func branchHeads() throws -> [BranchHead]
    /// The committer date of a stored commit; `nil` when the store does not hold it.
    func committerDate(ofCommit sha: String) throws -> Date?
    /// What each token spent in the 60 minutes before `now`, by token and kind.
    func spentRequests(inHourBefore now: Date) throws -> [SpentRequests]

    /// The claims daemons sharing the store hold on its sync queue, read like
    /// everything else here (a hot standby answers too); none on a store one
    /// host writes, whose claims are that host's own.
    func heldClaims() throws -> [SyncLease]
    /// The repositories in the sync queue daemons sharing the store claim from,
    /// each once; none on a store one host writes (its queue is in memory).
    func queuedRepositories() throws -> [RepositoryName]

    /// The store's latest change number (0 for an empty store): where `follow` starts.
    func latestChange() throws -> Int64
    /// Commits matching `filter`, newest committer date first, equal dates in
    /// mirrored order; handed over one at a time, all from one snapshot.
    func forEachCommit(matching filter: CommitFilter, _ body: (CommitSummary) throws -> Void) throws
    /// Hands over, in the order they arrived, the commits that enter the result
    /// of `filter` after change number `start`, until `isStopped()`.
    func follow(
        _ filter: CommitFilter, after start: Int64, interval: Duration, isStopped: () -> Bool,
        _ body: ([CommitSummary]) throws -> Void
    ) throws

    /// A full sha or a prefix of 4 or more hex digits; an ambiguous prefix is reported, never guessed.
    func resolveCommit(_ prefix: String, mailmap: Mailmap?) throws -> CommitResolution
    /// People by commits authored (`AuthorStatistics.ranked`), optionally of one repository.
    func authorStatistics(repository name: RepositoryName?, top: Int?, mailmap: Mailmap?) throws -> [AuthorStatistics]
    /// The same over only `commits` (store ids, this reader's: a path query's answer).
    func authorStatistics(
        repository name: RepositoryName?, commits: Set<Int64>, top: Int?, mailmap: Mailmap?
    ) throws -> [AuthorStatistics]
    /// Per repository (by name), or only `repository`.
    func repositoryStatistics(repository name: RepositoryName?) throws -> [RepositoryStatistics]
    /// Per mirrored branch (by repository, then branch), or only `repository`'s: what its rows hold.
    func branchStatistics(repository name: RepositoryName?) throws -> [BranchStatistics]
    /// The store's soundness, and per branch how complete its history is.
    func check() throws -> StoreCheck
    /// How many stored commits the message index does not cover yet (`StoreCheck.messageIndexLag`),
    /// in one query cheap enough to run after every sync.
    func messageIndexLag() throws -> Int
}

extension MirrorReading {
    /// Every repository's branches.
    public func allSyncStates() throws -> [SyncState] {
        try syncStates(repositoryID: nil)
    }

    /// What each token spent in the last hour.
    public func spentRequestsInLastHour() throws -> [SpentRequests] {
        try spentRequests(inHourBefore: Date())
    }

    /// The repository `name` names (none when the store does not know it), or every repository when `name` is nil.
    public func repositories(selectedBy name: RepositoryName?) throws -> [StoredRepository] {
        guard let name else { return try repositories() }
        return try repository(named: name).map { [$0] } ?? []
    }

    /// `forEachCommit` collected.
    public func matchingCommits(_ filter: CommitFilter) throws -> [CommitSummary] {
        var result: [CommitSummary] = []
        try forEachCommit(matching: filter) { result.append($0) }
        return result
    }
}
