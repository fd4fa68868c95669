import Foundation
import Logging

/// Branch moves that are not fast-forwards: acted on only when a second source
/// (GitHub's compare endpoint) confirms the rewrite, and then by marking, never
/// by deleting.
extension SyncEngine {
    /// After the walks: a head that does not descend from the old one is a
    /// rewrite only when GitHub's compare says so; then the commits no mirrored
    /// head reaches are marked off-branch (kept, hidden from queries).
    func settleBranchMove(from oldHead: String, to newHead: String, _ context: Context) async throws -> BranchMarks {
        let repositoryID = context.repository.id
        if try store.isAncestor(oldHead, of: newHead) {
            // A fast-forward can bring marked commits back (a merge of the old history).
            guard try store.hasOffBranchCommits(repositoryID: repositoryID) else { return BranchMarks() }
            return try store.markOffBranch(repositoryID: repositoryID, heads: try heads(newHead, context))
        }
        let comparison: GitHubClient.Comparison
        do {
            comparison = try await client.compare(context.name, base: oldHead, head: newHead)
        } catch GitHubError.notFound {
            throw inconsistency(
                context, "the new head \(newHead) does not descend from \(oldHead), and GitHub's compare does not know \(oldHead)")
        }
        guard comparison == .diverged || comparison == .behind else {
            throw inconsistency(
                context,
                "the new head \(newHead) does not descend from \(oldHead) in its listed history, yet GitHub's compare calls it \(comparison.rawValue)"
            )
        }
        let marks = try store.markOffBranch(repositoryID: repositoryID, heads: try heads(newHead, context))
        context.logger.notice(
            "branch history was rewritten; commits no longer on a mirrored branch are kept and hidden",
            metadata: [
                "head.old": "\(oldHead)", "head.new": "\(newHead)", "compare.status": "\(comparison.rawValue)",
                "sync.left_branch": "\(marks.leftBranch)", "sync.returned": "\(marks.returned)",
            ])
        return marks
    }

    private func heads(_ newHead: String, _ context: Context) throws -> [String] {
        try store.otherBranchHeads(repositoryID: context.repository.id, excluding: context.branch) + [newHead]
    }
}
