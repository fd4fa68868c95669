import Foundation
import Logging

/// The first syncs of several branches of one repository, read over git in one
/// fetch (docs/BRANCHES.md): every wanted tip in one `fetch`, each
/// commit stored once, no REST page listed. Each branch is then recorded
/// complete at the head its branch listing named, the one commit git's tip had
/// to be, so the per-branch syncs that follow find their heads unchanged (one
/// conditional probe each, answered 304: no rate limit spent).
extension SyncEngine {
    /// What reading several branches over git did.
    public enum BranchesOverGit: Sendable, Equatable {
        /// Fewer than two branches were never synced, or git is off: the
        /// per-branch syncs read what there is, as without this step.
        case notNeeded
        /// `branches` were stored and recorded complete.
        case stored(branches: [String], added: Int, gitRequests: Int, packBytes: Int)
        /// Git could not give the history (`reason`, one line); nothing was
        /// recorded for any branch, and the per-branch syncs read it over REST.
        case unavailable(reason: String)
    }

    /// Fewer never-synced branches than this are left to their own syncs: one
    /// branch's walk already reads a long history over git on its own.
    static let minimumBranchesOverGit = 2

    /// Reads the branches of `heads` (name → head, as the branch listing named
    /// them) over git in one fetch, and records each complete at its head, when
    /// the repository has no commit stored yet. A branch with a head or a walk
    /// already is left to its own sync, as is a repository that is not active
    /// (removed or gone).
    /// Throws what stops a sync anyway (the identity check's errors, a store
    /// that cannot be written, cancellation).
    public func readBranchesOverGit(_ name: RepositoryName, heads: [String: String]) async throws -> BranchesOverGit {
        guard let gitBootstrap, name.isGitHubName else { return .notNeeded }
        let known = try store.repository(named: name)
        // Only a first sync: a pack holds whole histories (no `have` is sent), so new branches of a
        // repository with history stored are cheaper walked from their heads, each stopping at what is stored.
        if let known, try store.repositoryState(repositoryID: known.id) != .active || store.commitCount(repositoryID: known.id) > 0 {
            return .notNeeded
        }
        var wanted: [String: String] = [:]
        for (branch, head) in heads where BranchName.problem(with: branch) == nil {
            if let known {
                guard try store.syncState(repositoryID: known.id, branch: branch)?.headSHA == nil,
                    try store.pendingWalks(repositoryID: known.id, branch: branch).isEmpty
                else { continue }
            }
            wanted[branch] = head
        }
        guard wanted.count >= Self.minimumBranchesOverGit else { return .notNeeded }
        // The clone URL, and the check that the name is still the repository stored under it.
        let repository = try await checkIdentity(of: known, name: name)
        guard let cloneURL = lookedUp?.cloneURL else { return .unavailable(reason: "the repository has no clone URL") }
        let target = GitBootstrap.Target(
            cloneURL: cloneURL, htmlURL: lookedUp?.htmlURL, tips: wanted, repositoryID: repository.id,
            expectedCommits: nil, sharesTheStore: sharesTheStore)
        switch try await gitBootstrap.run(target, client: client, store: store, logger: logger) {
        case .unavailable(let reason):
            logger.warning(
                "branches not read over git; each is synced over REST", metadata: ["repo": "\(name)", "git.reason": "\(reason)"])
            return .unavailable(reason: reason)
        case .stored(let added, let requests, let packBytes):
            gitRequests += requests
            let branches = wanted.keys.sorted()
            // Git sent the closed history of every tip, each the head the listing named: each
            // branch is whole at that head. Its rows are kept by the transaction that records it.
            for branch in branches {
                try store.recordAttempt(repositoryID: repository.id, branch: branch)
                try store.recordSuccess(
                    repositoryID: repository.id, branch: branch, headSHA: wanted[branch], headETag: wanted[branch].map { "\"\($0)\"" },
                    complete: true, rateLimit: client.usage.rateLimit)
            }
            // A new branch can reach commits a rewrite had left off every branch: on-branch again.
            if try store.hasOffBranchCommits(repositoryID: repository.id), let first = branches.first, let head = wanted[first] {
                let heads = try store.otherBranchHeads(repositoryID: repository.id, excluding: first) + [head]
                _ = try store.markOffBranch(repositoryID: repository.id, heads: heads)
            }
            logger.info(
                "branches read over git in one fetch",
                metadata: [
                    "repo": "\(name)", "git.branches": "\(branches.count)", "git.new_commits": "\(added)",
                    "git.requests": "\(requests)", "git.pack.bytes": "\(packBytes)",
                ])
            return .stored(branches: branches, added: added, gitRequests: requests, packBytes: packBytes)
        }
    }
}
