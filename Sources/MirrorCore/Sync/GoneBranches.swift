import Foundation

/// Marks gone the stored branches a repository's globs select that its branch listing
/// lacks, once GitHub confirms each is gone (docs/BRANCHES.md "Gone branches"): one
/// listing does not decide, since its pages can shift while they are read (a branch
/// deleted between two pages moves the next page's first branch onto the page already
/// read). Each such branch is asked for alone, `GET …/branches/{branch}`, and only a
/// 404 marks it gone (commits kept, mirrored again if it comes back). The one rule
/// `commitsctl sync` and commitsd share; each only words the outcome.
public enum GoneBranches {
    /// At most this many branches are asked for per call, so a listing that lacks many
    /// (a mass deletion, or a listing cut short) spends a bounded number of requests
    /// at once; the rest are asked for on the next listing.
    public static let confirmationsPerCall = 20

    /// What one call found, each list in the store's order.
    public struct Outcome: Sendable {
        /// Marked gone now: GitHub answered 404.
        public var marked: [String] = []
        /// The listing lacked them but GitHub still has them: left as they were.
        public var stillThere: [String] = []
        /// Not asked for yet (beyond `confirmationsPerCall`, or after `failure`): asked next time.
        public var unconfirmed: [String] = []
        /// What stopped the confirmations (a rate limit, a server error), if anything did.
        public var failure: GitHubError?

        /// Every branch the listing lacked was settled: nothing to ask again until the listing changes.
        public var isSettled: Bool { unconfirmed.isEmpty }

        public init() {}
    }

    /// Confirms and marks gone the stored, not yet gone branches of `globs`' repository
    /// that its globs select and `listed` (the listing's every branch) lacks. A GitHub error
    /// ends the confirmations and is returned in `Outcome.failure`, with what it left
    /// unasked (what was confirmed before it is still marked); anything else is thrown:
    /// the store's errors, `CancellationError`, an App's refused token.
    public static func confirmAndMark(
        _ globs: MirrorConfiguration.BranchGlobs, listed: Set<String>, store: StoreLocation, client: GitHubClient,
        limit: Int = confirmationsPerCall
    ) async throws -> Outcome {
        let repository = globs.key
        let missing = try store.openCommitReader().allSyncStates().filter {
            $0.repository.lowercased() == repository && $0.branchGoneSince == nil && globs.selection.matches($0.branch)
                && !listed.contains($0.branch)
        }.map(\.branch)
        var outcome = Outcome()
        var confirmedGone: [String] = []
        for (index, branch) in missing.enumerated() {
            guard index < limit, outcome.failure == nil else {
                outcome.unconfirmed.append(branch)
                continue
            }
            do {
                if try await client.branchExists(globs.name, branch: branch) {
                    outcome.stillThere.append(branch)
                } else {
                    confirmedGone.append(branch)
                }
            } catch let error as GitHubError {
                outcome.failure = error
                outcome.unconfirmed.append(branch)
            }
        }
        guard !confirmedGone.isEmpty else { return outcome }
        // The writer is opened after the requests, so no store lock is held while waiting on GitHub.
        let writer = try store.openSyncWriter()
        guard let stored = try writer.repository(named: globs.name) else { return outcome }
        for branch in confirmedGone where try writer.markBranchGone(repositoryID: stored.id, branch: branch, at: Date()) {
            outcome.marked.append(branch)
        }
        return outcome
    }
}
