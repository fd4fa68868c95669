import Foundation
import Logging
import Synchronization

/// Mirrors one branch of one repository exactly, resumably and frugally, and
/// never lets what a server says delete or corrupt what is stored.
///
/// 1. Probe the branch head with `If-None-Match: "<known head>"`: one request,
///    answered 304 (free when authenticated) when nothing moved. A moved head
///    first re-checks the repository's GitHub id: another repository under the
///    same name is refused, never mistaken for a force-push.
/// 2. A new head starts a *walk*: the listing pinned to that head
///    (`sha=<head>`), followed through `Link: rel="next"` links that stay on the
///    API's origin. Each page is stored with the walk's checkpoint. Pages that
///    come quickly share one transaction (at most `maximumPagesPerBatch` of them,
///    for at most `maximumBatchDuration`); the transaction commits before the
///    engine would wait longer than `maximumBatchWait` for the network.
/// 3. A walk ends when every parent of every commit it stored is stored (its
///    frontier is empty). GitHub lists the whole history of the sha a listing is
///    pinned to, so a listing that runs out with parents missing was wrong: each
///    missing parent is then listed on its own, and must come first in that listing.
/// 4. Answers that contradict each other (an empty first page, a listing that
///    does not start with its sha, pages that repeat) stop the sync with
///    `SyncError.inconsistentServer`: nothing stored changes, the branch is not
///    marked complete, and the walk's checkpoint lets a later sync converge.
/// 5. A head that no longer descends from the old one is a rewrite only when
///    GitHub's compare endpoint confirms it; the commits it leaves off the
///    branches are then marked, never deleted (`MirrorStore.markOffBranch`).
public final class SyncEngine {
    let client: GitHubClient
    let store: any SyncStore
    let logger: Logger
    let progress: ((SyncProgress) -> Void)?
    /// Where links may lead; `nil` (an unusable API URL) refuses every link.
    let origin: APIOrigin?
    /// Reads long first walks over git when set.
    let gitBootstrap: GitBootstrap?
    /// What this sync's repository lookup said (the clone URL a bootstrap needs).
    var lookedUp: GitHubClient.RepositoryInfo?
    /// Requests the git bootstraps of this sync made (not REST requests).
    var gitRequests = 0
    /// Pages one sync may fetch before it stops at a page boundary (`SyncStepEnded`); `nil`: no limit.
    let pageLimit: Int?
    /// Pages fetched by the sync in progress, against `pageLimit`.
    var pagesFetched = 0
    /// Set when other processes write the same store at the same moment (a
    /// daemon's claimed sync on a shared database): every page, and every chunk
    /// of a git history, commits on its own. Their write transactions take
    /// shared rows (and, on PostgreSQL, the claimed-batch lock) that every other
    /// daemon's writes wait for: a batch kept open for the next page would hold
    /// them all up for that page's round trip.
    let sharesTheStore: Bool
    /// How long an open batch waits for the page fetched ahead, and how long it
    /// may stay open at most: `maximumBatchWait` and `maximumBatchDuration`
    /// unless a test holds batches open on purpose (`TestTimings.batchSeconds`).
    let batchWait: Duration
    /// How pages share write transactions (`MirrorStore.withBatches`).
    let batchLimits: BatchLimits

    /// Listings of missing parents one sync may start before it gives up on the server.
    static let maximumRelistings = 1_000
    /// Elements per page the engine asks for (`per_page=100`).
    static let pageSize = 100
    /// Pages one write transaction may hold: what a crash or kill mid-walk can
    /// cost in pages fetched again (plus the one page fetched ahead).
    public static let maximumPagesPerBatch = 10
    /// How long a batch may hold the store's write lock before it commits.
    static let maximumBatchDuration = Duration.milliseconds(500)
    /// How long an open batch waits for the page fetched ahead before it commits.
    static let maximumBatchWait = Duration.milliseconds(50)
    /// How many pages past the next one a listing into an empty repository may ask
    /// for before the walk has stored them (PrefetchedPage): requests and decoding
    /// go on while the writer commits a batch, instead of waiting two pages behind
    /// it. Each holds a page's body and commits (about 0.5 MB) until it is stored.
    public static let pagesAhead = 4
    /// How pages share write transactions when the store is shared (`sharesTheStore`): not at all.
    static let sharedStoreBatchLimits = BatchLimits(maximumPages: 1)

    /// `heldBatches`: a test's wait and longest open time for batches (`batchWait`).
    public init(
        client: GitHubClient, store: any SyncStore, logger: Logger, gitBootstrap: GitBootstrap? = nil,
        progress: ((SyncProgress) -> Void)? = nil, pageLimit: Int? = nil, sharesTheStore: Bool = false,
        heldBatches: Duration? = nil
    ) {
        self.client = client
        self.store = store
        self.logger = logger
        self.gitBootstrap = gitBootstrap
        self.progress = progress
        self.origin = APIOrigin(url: client.configuration.apiURL)
        self.pageLimit = pageLimit
        self.sharesTheStore = sharesTheStore
        self.batchWait = heldBatches ?? Self.maximumBatchWait
        self.batchLimits = BatchLimits(
            maximumPages: Self.maximumPagesPerBatch, maximumDuration: heldBatches ?? Self.maximumBatchDuration)
    }

    /// What every step of one sync needs to know.
    struct Context {
        var repository: StoredRepository
        var name: RepositoryName
        var branch: String
        var logger: Logger
    }

    /// Syncs `branch` (default: the repository's default branch). `listedHead` is
    /// the head a branch listing made in this run names for it: when that is the
    /// head stored, whole, the branch costs no request of its own.
    public func sync(_ name: RepositoryName, branch requestedBranch: String? = nil, listedHead: String? = nil) async throws
        -> SyncReport
    {
        // Request URLs are made from `name`: only a name GitHub gave may go there.
        guard name.isGitHubName else { throw SyncError.storedNameOnly(repository: name.description) }
        let clock = ContinuousClock()
        let start = clock.now
        let usageBefore = client.usage
        pagesFetched = 0
        var identityChecked = false
        let known = try store.repository(named: name)
        // A gone repository's name may belong to a new repository by now: looked up again.
        let knownIsActive = try known.map { try store.repositoryState(repositoryID: $0.id) == .active } ?? false
        let repository: StoredRepository
        if let known, known.githubID != nil, knownIsActive, requestedBranch != nil || known.defaultBranch != nil {
            repository = known
        } else {
            repository = try await checkIdentity(of: known, name: name)
            identityChecked = true
        }
        let branch = requestedBranch ?? repository.defaultBranch ?? "main"
        var logger = self.logger
        logger[metadataKey: "repo"] = "\(name)"
        logger[metadataKey: "branch"] = "\(branch)"
        let context = Context(repository: repository, name: name, branch: branch, logger: logger)

        try store.recordAttempt(repositoryID: repository.id, branch: branch)
        var report = SyncReport(repository: name, branch: branch)
        do {
            let outcome = try await syncBranch(context, identityChecked: identityChecked, listedHead: listedHead)
            report.headSHA = outcome.headSHA
            report.complete = outcome.complete
            report.added = outcome.tally.added
            report.updated = outcome.tally.updated
            report.pages = outcome.tally.pages
            report.addedOverGit = outcome.tally.addedOverGit
            report.gitRequests = gitRequests
            report.leftBranch = outcome.marks.leftBranch
            report.returned = outcome.marks.returned
        } catch {
            try? store.recordFailure(
                repositoryID: repository.id, branch: branch,
                message: client.redact("\(error)"), rateLimit: client.usage.rateLimit)
            // A mistyped branch leaves no never-synced branch behind for `check` to wait on.
            // A branch synced before is gone from GitHub: marked so (`status`), its commits kept.
            if case GitHubError.branchNotFound = error {
                if requestedBranch == nil, !identityChecked,
                    let report = try await followRenamedDefaultBranch(repository, name: name, formerly: branch)
                {
                    return report
                }
                try? store.forgetBranchNeverSynced(repositoryID: repository.id, branch: branch)
                if (try? store.markBranchGone(repositoryID: repository.id, branch: branch, at: Date())) == true {
                    logger.notice("branch gone from GitHub; its commits stay stored, and it is mirrored again if it comes back")
                }
            }
            throw error
        }
        let usage = client.usage
        report.requests = usage.requests - usageBefore.requests
        report.notModified = usage.notModified - usageBefore.notModified
        report.rateLimit = usage.rateLimit
        report.elapsed = clock.now - start
        logger.info(
            "sync finished",
            metadata: [
                "sync.new_commits": "\(report.added)", "sync.updated_commits": "\(report.updated)",
                "sync.requests": "\(report.requests)", "sync.complete": "\(report.complete)",
                "rate.remaining": "\(report.rateLimit?.remaining.description ?? "-")",
            ])
        return report
    }

    /// The stored default branch `former` answered "not found": GitHub may have renamed it
    /// (main → trunk), which only the repository lookup says. When it names another default
    /// branch, that one is synced (a rename keeps the head, so a history stored whole costs
    /// its head alone), and only then is `former` marked gone: its rows and commits are kept,
    /// and what both reach stays on-branch. `nil` when the default branch is still `former`.
    func followRenamedDefaultBranch(_ repository: StoredRepository, name: RepositoryName, formerly former: String) async throws
        -> SyncReport?
    {
        let current = try await checkIdentity(of: repository, name: name)
        guard let renamed = current.defaultBranch, renamed != former else { return nil }
        var report = try await sync(name, branch: renamed)
        if try store.markBranchGone(repositoryID: repository.id, branch: former, at: Date()) {
            logger.notice(
                "the default branch was renamed on GitHub; the old name is marked gone, its commits kept",
                metadata: ["repo": "\(name)", "branch": "\(former)", "branch.new_name": "\(renamed)"])
        }
        report.renamedFrom = former
        return report
    }

    /// Looks the repository up by name and records what GitHub says (id,
    /// current name, every name it had). The same name answering with another
    /// GitHub id than the one stored is refused: it is another repository.
    func checkIdentity(of repository: StoredRepository?, name: RepositoryName) async throws -> StoredRepository {
        let info = try await client.repository(name)
        lookedUp = info
        // Another id under a mirrored name is refused (a wrong API URL must not graft another
        // history onto this one), unless GitHub already answered 404 for the mirrored one: it
        // was deleted, and the name's new repository takes it (`adopt` keeps the old history
        // under OWNER/NAME#<its id>).
        if let repository, let storedID = repository.githubID, storedID != info.id,
            try store.repositoryState(repositoryID: repository.id) != .gone
        {
            throw SyncError.repositoryIdentityChanged(
                repository: name.description, storedID: storedID, foundID: info.id,
                apiURL: origin?.description ?? "the API")
        }
        guard let fullName = RepositoryName(parsing: info.fullName) else {
            throw GitHubError.malformedResponse(
                url: "\(client.configuration.apiURL)/repos/\(name)",
                detail: "full_name is not OWNER/NAME", attempts: 1)
        }
        let identity = RepositoryIdentity(
            githubID: info.id, fullName: fullName,
            defaultBranch: info.defaultBranch, htmlURL: info.htmlURL)
        let adopted = try store.adopt(identity, requestedAs: name)
        if let repository, repository.name != adopted.name {
            logger.notice(
                "repository was renamed or transferred",
                metadata: [
                    "repo": "\(repository.name)", "repo.new_name": "\(adopted.name)",
                ])
        }
        return adopted
    }

    /// What syncing the branch did, for the report.
    struct BranchOutcome {
        var headSHA: String?
        var complete = false
        var tally = Tally()
        var marks = BranchMarks()
    }

    /// Commits and pages a walk or listing stored.
    struct Tally {
        var added = 0
        var updated = 0
        var pages = 0
        /// Of `added`, the commits read over git.
        var addedOverGit = 0

        static func + (lhs: Tally, rhs: Tally) -> Tally {
            Tally(
                added: lhs.added + rhs.added, updated: lhs.updated + rhs.updated, pages: lhs.pages + rhs.pages,
                addedOverGit: lhs.addedOverGit + rhs.addedOverGit)
        }
    }

    private func syncBranch(_ context: Context, identityChecked: Bool, listedHead: String?) async throws -> BranchOutcome {
        let repositoryID = context.repository.id
        let state = try store.syncState(repositoryID: repositoryID, branch: context.branch)
        var walks = try store.pendingWalks(repositoryID: repositoryID, branch: context.branch)
        let knownHead = walks.first?.headSHA ?? state?.headSHA

        let (probe, storedWhole) = try await probeHead(
            context, state: state, walks: walks, knownHead: knownHead, listedHead: listedHead)
        let head: String?
        switch probe {
        case .emptyRepository:
            return try settleEmptyRepository(context, state: state, walks: walks)
        case .unchanged:
            context.logger.debug("branch head unchanged", metadata: ["head": "\(knownHead ?? "-")"])
            head = knownHead
        case .moved(let moved) where moved == knownHead:
            head = moved
        case .moved(let moved) where storedWhole:
            // Its commits are this repository's already: no other repository's history can be grafted here.
            context.logger.info("new branch at a commit stored with its whole history", metadata: ["head.new": "\(moved)"])
            head = moved
        case .moved(let moved):
            context.logger.info("branch head moved", metadata: ["head.old": "\(knownHead ?? "-")", "head.new": "\(moved)"])
            if !identityChecked { _ = try await checkIdentity(of: context.repository, name: context.name) }
            walks = try walksAfterHeadMoved(to: moved, walks, state: state, context)
            head = moved
        }
        // A branch left incomplete with nothing to finish it (an older version stopped
        // such walks): list what it misses.
        if walks.isEmpty, let state, !state.complete, let head = state.headSHA {
            walks.append(try store.beginRepairWalk(repositoryID: repositoryID, branch: context.branch, headSHA: head))
        }
        var outcome = BranchOutcome(headSHA: head)

        let neverComplete = state?.headSHA == nil
        var walked = 0
        var abandoned: [Walk] = []
        for (index, walk) in walks.enumerated() {
            // Walks run newest first, so the head's own history is stored when an
            // older walk is checked against it, before that walk lists anything more.
            if let head, walk.headSHA != head, !(try await pinnedHeadIsOnBranch(walk, branchHead: head, context)) {
                abandoned.append(walk)
                continue
            }
            // The oldest walk of a never-completed history only ends at the roots,
            // so fetching its next page ahead of time can never waste a request.
            let prefetch = neverComplete && index == walks.count - 1
            outcome.tally = outcome.tally + (try await self.walk(walk, context, prefetch: prefetch, mayBootstrap: prefetch))
            walked += 1
        }
        if walked > 0, let head { outcome.tally = outcome.tally + (try await completeHistory(head: head, context)) }
        if let head, !abandoned.isEmpty {
            outcome.marks = try abandon(abandoned, branchHead: head, context)
        }
        outcome.complete = (state?.complete ?? false) || walked > 0 || storedWhole
        if let oldHead = state?.headSHA, let head, oldHead != head {
            outcome.marks = outcome.marks + (try await settleBranchMove(from: oldHead, to: head, context))
        }
        try store.recordSuccess(
            repositoryID: repositoryID, branch: context.branch, headSHA: outcome.headSHA,
            headETag: outcome.headSHA.map { "\"\($0)\"" }, complete: outcome.complete,
            rateLimit: client.usage.rateLimit)
        return outcome
    }

    /// Where the branch's head is now, and whether it is a new branch at a commit
    /// stored with its whole history (a branch cut from another: recorded whole at
    /// that head, with no walk and no request more). The listing answered for every
    /// branch at once: a branch it names at the head stored whole needs no probe, nor
    /// does a new branch it names at a commit stored with its whole history. Anything
    /// else (a moved head, a walk under way, a history not yet whole) is probed.
    private func probeHead(
        _ context: Context, state: SyncState?, walks: [Walk], knownHead: String?, listedHead: String?
    ) async throws -> (probe: GitHubClient.HeadProbe, storedWhole: Bool) {
        let repositoryID = context.repository.id
        let isNew = state?.headSHA == nil && walks.isEmpty
        if listedHead != nil && listedHead == state?.headSHA && state?.complete == true && walks.isEmpty {
            return (.unchanged, false)
        }
        if let listedHead, isNew, try store.holdsWholeHistory(of: listedHead, repositoryID: repositoryID) {
            return (.moved(sha: listedHead), true)
        }
        let probe = try await client.branchHead(context.name, branch: context.branch, knownHead: knownHead)
        if case .moved(let moved) = probe, isNew {
            return (probe, try store.holdsWholeHistory(of: moved, repositoryID: repositoryID))
        }
        return (probe, false)
    }

    func inconsistency(_ context: Context, _ detail: String) -> SyncError {
        context.logger.error("server inconsistency; nothing stored was changed", metadata: ["detail": "\(detail)"])
        return SyncError.inconsistentServer(repository: context.name.description, branch: context.branch, detail: detail)
    }
}
