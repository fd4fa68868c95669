import Foundation
import Logging

/// Walks are pinned to the head the branch had when they began. A head can
/// leave the branch before its walk ends (a force-push, a head the server showed
/// once and withdrew, a sha that never was a commit): such a walk must neither
/// block the branch (its listing may answer 404 for ever) nor have what it
/// stored answered as branch history. Walks are checked against the branch's
/// head before they resume, and dropped — their commits kept, marked
/// off-branch — only when GitHub agrees the branch does not reach them.
extension SyncEngine {
    /// The walks to run once the head moved to `head`: the head's own first (one
    /// already pending, or a new one unless the head is a complete mirrored
    /// head), then the older ones that stored something. A walk that never stored
    /// a page was pinned to a head the branch left before anything of it was
    /// kept; it is forgotten.
    func walksAfterHeadMoved(to head: String, _ walks: [Walk], state: SyncState?, _ context: Context) throws -> [Walk] {
        var headsWalk: Walk?
        var older: [Walk] = []
        for walk in walks {
            if walk.headSHA == head {
                headsWalk = headsWalk ?? walk
            } else if walk.pagesDone == 0, try store.frontierCount(walkID: walk.id) == 0 {
                context.logger.notice(
                    "forgetting a walk that stored nothing, pinned to a head the branch no longer has",
                    metadata: ["walk.head": "\(walk.headSHA)"])
                try store.finishWalk(walk)
            } else {
                older.append(walk)
            }
        }
        if let headsWalk { return [headsWalk] + older }
        if head == state?.headSHA, state?.complete == true { return older }
        return [try store.beginWalk(repositoryID: context.repository.id, branch: context.branch, headSHA: head)] + older
    }

    /// Whether the walk pinned to `walk.headSHA` may resume under the branch's
    /// current `head`, whose own history is stored by now. The stored history
    /// answers most cases for free; when it does not reach the pinned head,
    /// GitHub's compare decides (the stored history may still have gaps that an
    /// older walk fills): `ahead` or `identical` resumes the walk, `behind` or
    /// `diverged` (or a pinned head GitHub no longer knows) drops it.
    func pinnedHeadIsOnBranch(_ walk: Walk, branchHead head: String, _ context: Context) async throws -> Bool {
        if try store.isAncestor(walk.headSHA, of: head) { return true }
        let status: String
        do {
            let comparison = try await client.compare(context.name, base: walk.headSHA, head: head)
            if comparison == .ahead || comparison == .identical { return true }
            status = comparison.rawValue
        } catch GitHubError.notFound {
            // Force-pushed away and collected: it is on no branch any more.
            status = "unknown to GitHub"
        }
        context.logger.notice(
            "the branch no longer reaches the head an unfinished walk was pinned to; the walk is dropped",
            metadata: [
                "walk.head": "\(walk.headSHA)", "head": "\(head)", "compare.status": "\(status)",
                "walk.pages_done": "\(walk.pagesDone)",
            ])
        return false
    }

    /// Drops `walks` and marks what they stored that no mirrored head reaches
    /// (kept, hidden from queries, back on the branch if a head reaches it again).
    func abandon(_ walks: [Walk], branchHead head: String, _ context: Context) throws -> BranchMarks {
        let repositoryID = context.repository.id
        let heads = try store.otherBranchHeads(repositoryID: repositoryID, excluding: context.branch) + [head]
        let marks = try store.abandonWalks(walks, repositoryID: repositoryID, heads: heads)
        if marks.leftBranch > 0 {
            context.logger.notice(
                "commits stored for a head the branch no longer reaches are kept and hidden",
                metadata: ["sync.left_branch": "\(marks.leftBranch)", "head": "\(head)"])
        }
        return marks
    }

    /// GitHub calls the repository empty. Believed only when nothing of it is
    /// stored: walks that never stored a page are forgotten, anything more is an
    /// inconsistency.
    func settleEmptyRepository(_ context: Context, state: SyncState?, walks: [Walk]) throws -> BranchOutcome {
        if let stored = state?.headSHA ?? walks.first(where: { $0.pagesDone > 0 })?.headSHA {
            throw inconsistency(context, "GitHub calls the repository empty, but its branch head \(stored) is mirrored")
        }
        for walk in walks { try store.finishWalk(walk) }
        context.logger.info("repository is empty")
        try store.recordSuccess(
            repositoryID: context.repository.id, branch: context.branch, headSHA: nil, headETag: nil,
            complete: true, rateLimit: client.usage.rateLimit)
        return BranchOutcome(complete: true)
    }
}
