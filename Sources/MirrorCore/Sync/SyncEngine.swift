import Foundation
import Logging

/// Mirrors one branch of one repository exactly, resumably and frugally.
///
/// 1. Probe the branch head with `If-None-Match: "<known head>"`: one request,
///    answered 304 (free when authenticated) when nothing moved.
/// 2. A new head starts a *walk*: the listing pinned to that head
///    (`sha=<head>`), followed through `Link: rel="next"`. Each page is stored
///    in one transaction with the walk's checkpoint.
/// 3. A walk stops when every parent of every commit it fetched is stored (its
///    frontier is empty), so commits a merge brings in with older dates are
///    never missed, and an already-mirrored history costs no extra pages.
/// 4. Unfinished walks (an interrupted earlier sync) resume, newest first, from
///    their stored next-page URL; history is declared complete only when no
///    walk remains and none ended with parents missing.
public final class SyncEngine {
    private let client: GitHubClient
    private let store: MirrorStore
    private let logger: Logger
    private let progress: ((SyncProgress) -> Void)?

    public init(client: GitHubClient, store: MirrorStore, logger: Logger, progress: ((SyncProgress) -> Void)? = nil) {
        self.client = client
        self.store = store
        self.logger = logger
        self.progress = progress
    }

    /// Syncs `branch` (default: the repository's default branch).
    public func sync(_ name: RepositoryName, branch requestedBranch: String? = nil) async throws -> SyncReport {
        let clock = ContinuousClock()
        let start = clock.now
        let usageBefore = client.usage
        var repository = try store.ensureRepository(named: name)
        if repository.githubID == nil || (requestedBranch == nil && repository.defaultBranch == nil) {
            let info = try await client.repository(name)
            try store.updateRepository(id: repository.id, githubID: info.id, fullName: info.fullName,
                                       defaultBranch: info.defaultBranch, htmlURL: info.htmlURL)
            if info.fullName.lowercased() != name.description.lowercased() {
                logger.notice("repository was renamed or transferred", metadata: [
                    "repo": "\(name)", "repo.new_name": "\(info.fullName)",
                ])
            }
            repository.githubID = info.id
            repository.defaultBranch = info.defaultBranch
        }
        let branch = requestedBranch ?? repository.defaultBranch ?? "main"
        var report = SyncReport(repository: name, branch: branch)
        var logger = self.logger
        logger[metadataKey: "repo"] = "\(name)"
        logger[metadataKey: "branch"] = "\(branch)"

        try store.recordAttempt(repositoryID: repository.id, branch: branch)
        do {
            try await syncBranch(repository: repository, name: name, branch: branch, report: &report, logger: logger)
        } catch {
            let usage = client.usage
            try? store.recordFailure(repositoryID: repository.id, branch: branch,
                                     message: client.redact("\(error)"), rateLimit: usage.rateLimit)
            throw error
        }
        let usage = client.usage
        report.requests = usage.requests - usageBefore.requests
        report.notModified = usage.notModified - usageBefore.notModified
        report.rateLimit = usage.rateLimit
        report.elapsed = clock.now - start
        logger.info("sync finished", metadata: [
            "sync.new_commits": "\(report.added)", "sync.updated_commits": "\(report.updated)",
            "sync.requests": "\(report.requests)", "sync.complete": "\(report.complete)",
            "rate.remaining": "\(report.rateLimit?.remaining.description ?? "-")",
        ])
        return report
    }

    private func syncBranch(repository: MirrorStore.Repository, name: RepositoryName, branch: String,
                            report: inout SyncReport, logger: Logger) async throws {
        let state = try store.syncState(repositoryID: repository.id, branch: branch)
        var walks = try store.pendingWalks(repositoryID: repository.id, branch: branch)
        let knownHead = walks.first?.headSHA ?? state?.headSHA

        switch try await client.branchHead(name, branch: branch, knownHead: knownHead) {
        case .emptyRepository:
            logger.info("repository is empty")
            report.complete = true
            try store.recordSuccess(repositoryID: repository.id, branch: branch, headSHA: nil, headETag: nil,
                                    complete: true, rateLimit: client.usage.rateLimit)
            return
        case .unchanged:
            logger.debug("branch head unchanged", metadata: ["head": "\(knownHead ?? "-")"])
        case .moved(let head) where head == knownHead:
            break
        case .moved(let head):
            logger.info("branch head moved", metadata: ["head.old": "\(knownHead ?? "-")", "head.new": "\(head)"])
            walks.insert(try store.beginWalk(repositoryID: repository.id, branch: branch, headSHA: head), at: 0)
        }
        let newestHead = walks.first?.headSHA ?? knownHead
        report.headSHA = newestHead

        var missingParents = 0
        let neverComplete = state?.headSHA == nil
        for (index, walk) in walks.enumerated() {
            // The oldest walk of a never-completed history only ends at the roots,
            // so fetching its next page ahead of time can never waste a request.
            let prefetch = neverComplete && index == walks.count - 1
            missingParents += try await run(walk, repository: repository, name: name, prefetch: prefetch,
                                            report: &report, logger: logger)
        }
        let wasComplete = state?.complete ?? false
        report.complete = missingParents == 0 && (wasComplete || !walks.isEmpty)
        report.missingParents = missingParents
        // A new head that does not descend from the old one means the branch was
        // rewritten (force-push): commits no head reaches any more leave the mirror.
        if report.complete, let oldHead = state?.headSHA, let newestHead, oldHead != newestHead,
           try !store.isAncestor(oldHead, of: newestHead) {
            let heads = try store.otherBranchHeads(repositoryID: repository.id, excluding: branch) + [newestHead]
            report.removed = try store.pruneUnreachable(repositoryID: repository.id, heads: heads)
            logger.notice("branch history was rewritten; dropped commits no longer reachable", metadata: [
                "head.old": "\(oldHead)", "head.new": "\(newestHead)", "sync.removed_commits": "\(report.removed)",
            ])
        }
        try store.recordSuccess(repositoryID: repository.id, branch: branch, headSHA: newestHead,
                                headETag: newestHead.map { "\"\($0)\"" }, complete: report.complete,
                                rateLimit: client.usage.rateLimit)
    }

    /// Walks one listing to its end or until its frontier is empty. Returns the
    /// number of parents still missing when the listing ran out (normally 0).
    private func run(_ initialWalk: Walk, repository: MirrorStore.Repository, name: RepositoryName, prefetch: Bool,
                     report: inout SyncReport, logger: Logger) async throws -> Int {
        var walk = initialWalk
        if walk.pagesDone > 0 {
            logger.info("resuming interrupted walk", metadata: [
                "walk.head": "\(walk.headSHA)", "walk.pages_done": "\(walk.pagesDone)",
            ])
            if try store.pruneFrontier(walkID: walk.id, repositoryID: repository.id) == 0 {
                return try store.finishWalk(walk)
            }
            guard walk.nextURL != nil else { return try store.finishWalk(walk) }
        }
        let clock = ContinuousClock()
        let start = clock.now
        var url = walk.nextURL ?? client.firstCommitsPageURL(name, sha: walk.headSHA)
        // A Link that leads back to a page this walk already read would loop forever.
        var visited: Set<String> = [url]
        var pending: Task<GitHubClient.CommitsPage, any Error>?
        defer { pending?.cancel() }
        let client = self.client

        while true {
            // A cancelled sync (commitsd's graceful shutdown) stops here, between pages.
            try Task.checkCancellation()
            let page: GitHubClient.CommitsPage
            if let fetched = pending {
                pending = nil
                // The prefetch is an unstructured task: pass our cancellation on to it.
                page = try await withTaskCancellationHandler { try await fetched.value } onCancel: { fetched.cancel() }
            } else {
                page = try await client.commitsPage(url: url, repository: name)
            }
            let next = page.commits.isEmpty ? nil : page.links?.next
            if let next, !visited.insert(next).inserted {
                throw GitHubError.paginationLoop(url: next)
            }
            // A page whose parents all lie within itself holds the roots: the walk
            // is about to end, so fetching ahead could only waste a request.
            if prefetch, let next, page.hasParentsOutsideItself {
                // Fetch page N+1 while page N is stored (still one request at a time).
                pending = Task { try await client.commitsPage(url: next, repository: name) }
            }
            let outcome = try store.store(page: page.commits, repositoryID: repository.id, walk: &walk,
                                          nextURL: next, pagesTotal: page.lastPageNumber)
            report.added += outcome.added
            report.updated += outcome.updated
            report.pages += 1
            progress?(SyncProgress(repository: name, pagesDone: walk.pagesDone, pagesTotal: walk.pagesTotal,
                                   commitsStored: report.added, elapsed: clock.now - start))
            guard outcome.frontier > 0, let next else {
                let missing = try store.finishWalk(walk)
                if missing > 0 {
                    logger.error("listing ended with parents never listed", metadata: [
                        "walk.head": "\(walk.headSHA)", "walk.missing_parents": "\(missing)",
                    ])
                }
                return missing
            }
            url = next
        }
    }
}

extension GitHubClient.CommitsPage {
    var hasParentsOutsideItself: Bool {
        let shas = Set(commits.map(\.sha))
        return commits.contains { $0.parents.contains { !shas.contains($0.sha) } }
    }
}
