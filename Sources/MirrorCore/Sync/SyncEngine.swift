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
    let store: MirrorStore
    private let logger: Logger
    private let progress: ((SyncProgress) -> Void)?
    /// Where links may lead; `nil` (an unusable API URL) refuses every link.
    private let origin: APIOrigin?
    /// Reads long first walks over git when set.
    private let gitBootstrap: GitBootstrap?
    /// What this sync's repository lookup said (the clone URL a bootstrap needs).
    private var lookedUp: GitHubClient.RepositoryInfo?
    /// Requests the git bootstraps of this sync made (not REST requests).
    private var gitRequests = 0
    /// Pages one sync may fetch before it stops at a page boundary (`SyncStepEnded`); `nil`: no limit.
    private let pageLimit: Int?
    /// Pages fetched by the sync in progress, against `pageLimit`.
    private var pagesFetched = 0

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

    public init(
        client: GitHubClient, store: MirrorStore, logger: Logger, gitBootstrap: GitBootstrap? = nil,
        progress: ((SyncProgress) -> Void)? = nil, pageLimit: Int? = nil
    ) {
        self.client = client
        self.store = store
        self.logger = logger
        self.gitBootstrap = gitBootstrap
        self.progress = progress
        self.origin = APIOrigin(url: client.configuration.apiURL)
        self.pageLimit = pageLimit
    }

    /// What every step of one sync needs to know.
    struct Context {
        var repository: MirrorStore.Repository
        var name: RepositoryName
        var branch: String
        var logger: Logger
    }

    /// Syncs `branch` (default: the repository's default branch).
    public func sync(_ name: RepositoryName, branch requestedBranch: String? = nil) async throws -> SyncReport {
        let clock = ContinuousClock()
        let start = clock.now
        let usageBefore = client.usage
        pagesFetched = 0
        var identityChecked = false
        let known = try store.repository(named: name)
        let repository: MirrorStore.Repository
        if let known, known.githubID != nil, requestedBranch != nil || known.defaultBranch != nil {
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
            let outcome = try await syncBranch(context, identityChecked: identityChecked)
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
            if case GitHubError.branchNotFound = error { try? store.forgetBranchNeverSynced(repositoryID: repository.id, branch: branch) }
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

    /// Looks the repository up by name and records what GitHub says (id,
    /// current name, every name it had). The same name answering with another
    /// GitHub id than the one stored is refused: it is another repository.
    private func checkIdentity(of repository: MirrorStore.Repository?, name: RepositoryName) async throws -> MirrorStore.Repository {
        let info = try await client.repository(name)
        lookedUp = info
        if let storedID = repository?.githubID, storedID != info.id {
            throw SyncError.repositoryIdentityChanged(
                repository: name.description, storedID: storedID, foundID: info.id,
                apiURL: origin?.description ?? "the API")
        }
        guard let fullName = RepositoryName(parsing: info.fullName) else {
            throw GitHubError.malformedResponse(
                url: "\(client.configuration.apiURL)/repos/\(name)",
                detail: "full_name is not OWNER/NAME", attempts: 1)
        }
        let identity = MirrorStore.RepositoryIdentity(
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
    private struct BranchOutcome {
        var headSHA: String?
        var complete = false
        var tally = Tally()
        var marks = MirrorStore.BranchMarks()
    }

    /// Commits and pages a walk or listing stored.
    private struct Tally {
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

    private func syncBranch(_ context: Context, identityChecked: Bool) async throws -> BranchOutcome {
        let repositoryID = context.repository.id
        let state = try store.syncState(repositoryID: repositoryID, branch: context.branch)
        var walks = try store.pendingWalks(repositoryID: repositoryID, branch: context.branch)
        let knownHead = walks.first?.headSHA ?? state?.headSHA

        switch try await client.branchHead(context.name, branch: context.branch, knownHead: knownHead) {
        case .emptyRepository:
            if let knownHead {
                throw inconsistency(context, "GitHub calls the repository empty, but its branch head \(knownHead) is mirrored")
            }
            context.logger.info("repository is empty")
            try store.recordSuccess(
                repositoryID: repositoryID, branch: context.branch, headSHA: nil, headETag: nil,
                complete: true, rateLimit: client.usage.rateLimit)
            return BranchOutcome(complete: true)
        case .unchanged:
            context.logger.debug("branch head unchanged", metadata: ["head": "\(knownHead ?? "-")"])
        case .moved(let head) where head == knownHead:
            break
        case .moved(let head):
            context.logger.info("branch head moved", metadata: ["head.old": "\(knownHead ?? "-")", "head.new": "\(head)"])
            if !identityChecked { _ = try await checkIdentity(of: context.repository, name: context.name) }
            walks.insert(try store.beginWalk(repositoryID: repositoryID, branch: context.branch, headSHA: head), at: 0)
        }
        // A branch left incomplete with nothing to finish it (an older version stopped
        // such walks): list what it misses.
        if walks.isEmpty, let state, !state.complete, let head = state.headSHA {
            walks.append(try store.beginRepairWalk(repositoryID: repositoryID, branch: context.branch, headSHA: head))
        }
        var outcome = BranchOutcome(headSHA: walks.first?.headSHA ?? knownHead)

        let neverComplete = state?.headSHA == nil
        for (index, walk) in walks.enumerated() {
            // The oldest walk of a never-completed history only ends at the roots,
            // so fetching its next page ahead of time can never waste a request.
            let prefetch = neverComplete && index == walks.count - 1
            outcome.tally = outcome.tally + (try await self.walk(walk, context, prefetch: prefetch, mayBootstrap: prefetch))
        }
        outcome.complete = (state?.complete ?? false) || !walks.isEmpty
        if let oldHead = state?.headSHA, let newestHead = outcome.headSHA, oldHead != newestHead {
            outcome.marks = try await settleBranchMove(from: oldHead, to: newestHead, context)
        }
        try store.recordSuccess(
            repositoryID: repositoryID, branch: context.branch, headSHA: outcome.headSHA,
            headETag: outcome.headSHA.map { "\"\($0)\"" }, complete: outcome.complete,
            rateLimit: client.usage.rateLimit)
        return outcome
    }

    // MARK: - Walks

    /// Runs one walk until its frontier is empty, listing missing parents on
    /// their own when a listing runs out before that. With `mayBootstrap` (the
    /// walk of a history never completed), a walk with at least
    /// `GitBootstrap.minimumPages` pages ahead reads the history over git, and
    /// goes on over REST only for what git did not give.
    private func walk(_ initial: Walk, _ context: Context, prefetch: Bool, mayBootstrap: Bool) async throws -> Tally {
        var walk = initial
        var tally = Tally()
        var bootstrapAllowed = mayBootstrap && gitBootstrap != nil
        if walk.pagesDone > 0 {
            context.logger.info(
                "resuming interrupted walk",
                metadata: [
                    "walk.head": "\(walk.headSHA)", "walk.pages_done": "\(walk.pagesDone)",
                ])
            if try store.pruneFrontier(walkID: walk.id, repositoryID: context.repository.id) == 0 {
                try store.finishWalk(walk)
                return tally
            }
            // A walk stopped right after its first page (a bootstrap interrupted) reads over
            // git again; one that went on over REST after git failed stays on REST.
            if bootstrapAllowed, walk.pagesDone == 1, walk.nextURL != nil, let gitBootstrap, let total = walk.pagesTotal,
                total - walk.pagesDone >= gitBootstrap.minimumPages
            {
                bootstrapAllowed = false
                let added = try await bootstrap(walk, context)
                tally = tally + Tally(added: added, addedOverGit: added)
                if try store.pruneFrontier(walkID: walk.id, repositoryID: context.repository.id) == 0 {
                    try store.finishWalk(walk)
                    return tally
                }
            }
        }
        if let resume = walk.nextURL, origin?.contains(resume) != true {
            // Written by an older version, or before the API URL changed: never followed.
            context.logger.warning(
                "ignoring a resume point outside the API; listing the missing parents instead",
                metadata: ["walk.resume": "\(APIOrigin.displayable(resume))"])
            walk.nextURL = nil
        }
        var relisted = 0
        while true {
            let listing: Listing
            if let resume = walk.nextURL {
                listing = Listing(url: resume, pinnedTo: nil)
            } else if let parent = try store.missingParents(walkID: walk.id, limit: 1).first {
                relisted += 1
                guard relisted <= Self.maximumRelistings else {
                    throw inconsistency(context, "listing \(relisted - 1) missing parents on their own still left parents unlisted")
                }
                context.logger.warning(
                    "a listing left out a parent; listing it on its own",
                    metadata: [
                        "walk.head": "\(walk.headSHA)", "walk.missing_parent": "\(parent)",
                    ])
                walk.listingSHA = parent
                listing = Listing(url: client.firstCommitsPageURL(context.name, sha: parent), pinnedTo: parent)
            } else if walk.pagesDone == 0 {
                walk.listingSHA = nil
                listing = Listing(url: client.firstCommitsPageURL(context.name, sha: walk.headSHA), pinnedTo: walk.headSHA)
            } else {
                break
            }
            let handOff = bootstrapAllowed && relisted == 0 && listing.pinnedTo == walk.headSHA
            let listed = try await list(listing, walk: walk, context, prefetch: prefetch && relisted == 0, handOffToGit: handOff)
            tally = tally + listed.tally
            walk = listed.walk
            if listed.handedOffToGit {
                bootstrapAllowed = false
                let added = try await bootstrap(walk, context)
                tally = tally + Tally(added: added, addedOverGit: added)
                if try store.pruneFrontier(walkID: walk.id, repositoryID: context.repository.id) == 0 { break }
                continue  // over REST from the page after the first
            }
            if listed.frontierEmptied { break }
            walk.nextURL = nil
        }
        try store.finishWalk(walk)
        return tally
    }

    /// Where a listing starts: a first page pinned to a sha, or a stored resume point.
    private struct Listing {
        var url: String
        /// The sha the first page must start with (`nil` when resuming mid-listing).
        var pinnedTo: String?
    }

    /// What following one listing did.
    private struct Listed {
        var tally: Tally
        /// The walk with its checkpoint as stored with the last page.
        var walk: Walk
        /// True when the walk's frontier emptied, false when the listing ran out first.
        var frontierEmptied: Bool
        /// True when the listing stopped after its first page for git to read the rest.
        var handedOffToGit = false
    }

    /// Follows one listing page by page. With `handOffToGit`, a first page that
    /// announces at least `GitBootstrap.minimumPages` more is stored and the
    /// listing stops there, with nothing fetched ahead.
    private func list(_ listing: Listing, walk initial: Walk, _ context: Context, prefetch: Bool, handOffToGit: Bool) async throws
        -> Listed
    {
        var walk = initial
        var tally = Tally()
        let clock = ContinuousClock()
        let start = clock.now
        let name = context.name
        let client = self.client
        var url = listing.url
        var pinnedTo = listing.pinnedTo
        // A listing repeats nothing: no URL, no page, no more stored commits than the store holds.
        var visited: Set<String> = [url]
        var firstSHAs: Set<String> = []
        var staleElements = 0
        let staleBound = try store.commitCount(repositoryID: context.repository.id) + 2 * Self.pageSize
        var pagesRead = 0
        var pending: PrefetchedPage?
        defer { pending?.cancel() }
        // An error or cancellation ending the listing keeps the pages stored so far.
        defer { try? store.commitBatch() }

        while true {
            // A cancelled sync (a service's graceful shutdown) stops here, between pages.
            try Task.checkCancellation()
            let page: GitHubClient.CommitsPage
            if let fetched = pending {
                pending = nil
                if store.batch != nil, !(await fetched.arrives(within: Self.maximumBatchWait)) {
                    try store.commitBatch()
                }
                page = try await fetched.value
            } else {
                try store.commitBatch()
                page = try await client.commitsPage(url: url, repository: name)
            }
            pagesRead += 1
            pagesFetched += 1
            let stepEnds = pageLimit.map { pagesFetched >= $0 } ?? false
            if let sha = pinnedTo {
                guard let top = page.commits.first?.sha else {
                    throw inconsistency(context, "the listing of \(sha) was empty")
                }
                guard top == sha else {
                    throw inconsistency(context, "the listing of \(sha) starts with \(top) instead")
                }
                pinnedTo = nil
            }
            if let top = page.commits.first?.sha, !firstSHAs.insert(top).inserted {
                throw inconsistency(context, "page \(pagesRead) of a listing repeats an earlier page (is the server ignoring page=?)")
            }
            if let last = page.lastPageNumber, pagesRead > last + 1 {
                throw inconsistency(context, "the listing went on past its last page (\(last))")
            }
            let next = try nextPage(of: page, at: url, context)
            if let next, !visited.insert(next).inserted {
                throw GitHubError.paginationLoop(url: APIOrigin.displayable(next))
            }
            let handOff =
                handOffToGit && pagesRead == 1 && next != nil
                && (page.lastPageNumber ?? 0) - (walk.pagesDone + 1) >= (gitBootstrap?.minimumPages ?? .max)
            // A page whose parents all lie within itself holds the roots: the walk
            // is about to end, so fetching ahead could only waste a request.
            if prefetch, !handOff, !stepEnds, let next, page.hasParentsOutsideItself {
                // Fetch page N+1 while page N is stored (still one request at a time).
                pending = PrefetchedPage { try await client.commitsPage(url: next, repository: name) }
            }
            try store.beginBatch()
            let outcome = try store.store(
                page: page.commits, repositoryID: context.repository.id, walk: &walk,
                nextURL: next, pagesTotal: page.lastPageNumber)
            staleElements += page.commits.count - outcome.added
            if staleElements > staleBound {
                throw inconsistency(
                    context, "the listing returned \(plural(staleElements, "commit")) already stored, more than the repository holds")
            }
            tally = tally + Tally(added: outcome.added, updated: outcome.updated, pages: 1)
            if let batch = store.batch,
                batch.pages >= Self.maximumPagesPerBatch || .now - batch.started >= Self.maximumBatchDuration
            {
                try store.commitBatch()
            }
            progress?(
                SyncProgress(
                    repository: name, pagesDone: walk.pagesDone, pagesTotal: walk.pagesTotal,
                    commitsStored: tally.added, elapsed: clock.now - start))
            guard outcome.frontier > 0, let next else {
                try store.commitBatch()
                return Listed(tally: tally, walk: walk, frontierEmptied: outcome.frontier == 0)
            }
            if handOff {
                try store.commitBatch()
                return Listed(tally: tally, walk: walk, frontierEmptied: false, handedOffToGit: true)
            }
            if stepEnds {
                try store.commitBatch()
                throw SyncStepEnded(repository: name, pages: pagesFetched)
            }
            url = next
        }
    }

    /// The page's `rel="next"` resolved against its URL, when it stays on the
    /// API's origin; an empty page ends the listing whatever it links to.
    private func nextPage(of page: GitHubClient.CommitsPage, at url: String, _ context: Context) throws -> String? {
        guard !page.commits.isEmpty, let link = page.links?.next else { return nil }
        guard let origin, let resolved = origin.resolve(link, against: url) else {
            throw SyncError.linkRefused(
                repository: context.name.description, link: APIOrigin.displayable(link),
                origin: origin?.description ?? "the API")
        }
        return resolved
    }

    /// Reads the walk's history over git; returns the commits that joined the
    /// repository (0 when git could not give it: the walk goes on over REST).
    private func bootstrap(_ walk: Walk, _ context: Context) async throws -> Int {
        guard let gitBootstrap else { return 0 }
        if lookedUp == nil { _ = try await checkIdentity(of: context.repository, name: context.name) }
        guard let cloneURL = lookedUp?.cloneURL else {
            context.logger.notice("the repository has no clone URL; listing its history over REST")
            return 0
        }
        let target = GitBootstrap.Target(
            cloneURL: cloneURL, htmlURL: lookedUp?.htmlURL, branch: context.branch, head: walk.headSHA,
            repositoryID: context.repository.id, expectedCommits: walk.pagesTotal.map { $0 * Self.pageSize })
        switch try await gitBootstrap.run(target, client: client, store: store, logger: context.logger) {
        case .stored(let added, let requests, let packBytes):
            gitRequests += requests
            context.logger.info(
                "history read over git",
                metadata: ["git.new_commits": "\(added)", "git.requests": "\(requests)", "git.pack.bytes": "\(packBytes)"])
            return added
        case .unavailable(let reason):
            context.logger.warning("history not read over git; listing it over REST", metadata: ["git.reason": "\(reason)"])
            return 0
        }
    }

    func inconsistency(_ context: Context, _ detail: String) -> SyncError {
        context.logger.error("server inconsistency; nothing stored was changed", metadata: ["detail": "\(detail)"])
        return SyncError.inconsistentServer(repository: context.name.description, branch: context.branch, detail: detail)
    }
}

/// A page fetched ahead while the previous one is stored, and whether it has
/// arrived: the engine commits its open batch rather than wait long for one.
private final class PrefetchedPage: Sendable {
    private let task: Task<GitHubClient.CommitsPage, any Error>
    private let arrival: Arrival

    private final class Arrival: Sendable {
        let flag = Atomic<Bool>(false)
    }

    init(_ fetch: @escaping @Sendable () async throws -> GitHubClient.CommitsPage) {
        let arrival = Arrival()
        self.arrival = arrival
        task = Task {
            defer { arrival.flag.store(true, ordering: .releasing) }
            return try await fetch()
        }
    }

    /// Whether the page arrives within `limit` (polled: waiting for the task
    /// itself could not stop at the limit).
    func arrives(within limit: Duration) async -> Bool {
        let deadline = ContinuousClock.now + limit
        while !arrival.flag.load(ordering: .acquiring) {
            guard ContinuousClock.now < deadline else { return false }
            do {
                try await Task.sleep(for: .milliseconds(1))
            } catch {
                break  // cancelled: the caller commits and stops
            }
        }
        return arrival.flag.load(ordering: .acquiring)
    }

    /// The page; the fetch is an unstructured task, so our cancellation is passed on to it.
    var value: GitHubClient.CommitsPage {
        get async throws {
            try await withTaskCancellationHandler {
                try await task.value
            } onCancel: { [task] in
                task.cancel()
            }
        }
    }

    func cancel() { task.cancel() }
}

extension GitHubClient.CommitsPage {
    var hasParentsOutsideItself: Bool {
        let shas = Set(commits.map(\.sha))
        return commits.contains { $0.parents.contains { !shas.contains($0) } }
    }
}
