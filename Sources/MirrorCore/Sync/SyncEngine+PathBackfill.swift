import Foundation
import Logging

/// Changed paths for a history already mirrored without them (a REST walk, a
/// store older than paths): one blobless fetch of the branch, whose commits
/// are all stored already, so only their changes are written (docs/SYNC.md,
/// "Changed paths").
extension SyncEngine {
    /// What reading a branch's paths did.
    public enum PathBackfill: Sendable, Equatable {
        /// Paths are off, the branch has no complete head, or fewer commits than asked lack paths.
        case notNeeded
        /// The branch's history was read with its trees: `commits` stored commits got their paths.
        case stored(commits: Int, gitRequests: Int, packBytes: Int)
        /// Git could not give the trees (`reason`, one line); nothing was changed.
        case unavailable(reason: String)
    }

    /// Commits without paths below this many are left for later: the fetch
    /// reads the branch's whole history of trees, however few lack them.
    public static let pathBackfillThreshold = 100

    /// Reads the paths of `branch`'s stored history over git when at least
    /// `minimumUncovered` commits of the repository lack them. Resumable: each
    /// batch of commits is committed with its changes, and a commit that has
    /// its changes keeps them.
    /// Throws what stops a sync anyway (a store that cannot be written, cancellation).
    public func backfillPaths(
        _ name: RepositoryName, branch: String, minimumUncovered: Int = SyncEngine.pathBackfillThreshold
    ) async throws -> PathBackfill {
        guard let gitBootstrap, gitBootstrap.readsChanges, name.isGitHubName,
            let repository = try store.repository(named: name),
            try store.repositoryState(repositoryID: repository.id) == .active,
            let state = try store.syncState(repositoryID: repository.id, branch: branch), state.complete,
            let head = state.headSHA
        else { return .notNeeded }
        let uncovered = try store.commitsWithoutChanges(repositoryID: repository.id)
        guard uncovered >= max(1, minimumUncovered) else { return .notNeeded }
        if lookedUp == nil { _ = try await checkIdentity(of: repository, name: name) }
        guard let cloneURL = lookedUp?.cloneURL else { return .unavailable(reason: "the repository has no clone URL") }
        let target = GitBootstrap.Target(
            cloneURL: cloneURL, htmlURL: lookedUp?.htmlURL, tips: [branch: head], repositoryID: repository.id,
            expectedCommits: state.commits, sharesTheStore: sharesTheStore)
        var logger = self.logger
        logger[metadataKey: "repo"] = "\(name)"
        logger[metadataKey: "branch"] = "\(branch)"
        switch try await gitBootstrap.run(target, client: client, store: store, logger: logger) {
        case .unavailable(let reason):
            logger.warning("paths not read over git", metadata: ["git.reason": "\(reason)"])
            return .unavailable(reason: reason)
        case .stored(_, let requests, let packBytes):
            gitRequests += requests
            let left = try store.commitsWithoutChanges(repositoryID: repository.id)
            logger.info(
                "paths read over git",
                metadata: [
                    "paths.commits_read": "\(uncovered - left)", "paths.commits_left": "\(left)", "git.requests": "\(requests)",
                    "git.pack.bytes": "\(packBytes)",
                ])
            return .stored(commits: uncovered - left, gitRequests: requests, packBytes: packBytes)
        }
    }
}
