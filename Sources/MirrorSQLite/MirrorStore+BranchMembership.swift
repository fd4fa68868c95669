import Foundation
import MirrorBookkeeping
import MirrorCore
import SQLite

// `branch_commits` kept by the writer (schema version 9): called inside the
// transaction that records a branch's head, so a reader never sees a head
// without the commits it reaches. The rule is BranchMembershipUpdate's (MirrorCore).

extension MirrorStore {
    /// Brings the branch's rows from what its previous head reached to what
    /// `head` reaches. Call inside the transaction that records `head`, before
    /// `sync_state` is updated (the previous head is read from it).
    public func updateBranchCommits(repositoryID: Int64, branch: String, head: String?) throws {
        let previous = try db.prepare("SELECT head_sha, complete FROM sync_state WHERE repository_id = ? AND branch = ?")
            .bind([repositoryID, branch]).first { (head: $0.optionalString(0), complete: $0.int(1) != 0) }
        let (branchID, rowsKnown, returned) = try branchRow(repositoryID: repositoryID, branch: branch)
        // A gone branch back on GitHub holds its commits on-branch again (`markBranchGone` marked them).
        if returned, let head, try hasOffBranchCommits(repositoryID: repositoryID) {
            _ = try remark(
                repositoryID: repositoryID, heads: try mirroredHeads(repositoryID: repositoryID, excluding: branch) + [head], at: Date())
        }
        let complete = rowsKnown && previous?.complete == true
        switch BranchMembershipUpdate(previousHead: previous?.head, previousComplete: complete, head: head) {
        case .none:
            return
        case .clear:
            try db.execute("DELETE FROM branch_commits WHERE branch_id = ?", [branchID])
        case .extendOrRecompute(let old, let new):
            try collectReached(from: new, branchID: branchID)
            let fastForward =
                try db.scalarInt(
                    "SELECT count(*) FROM branch_reached WHERE id = (SELECT id FROM commits WHERE sha = ?)", [old]) ?? 0 > 0
            if !fastForward {
                try db.execute("DELETE FROM branch_commits WHERE branch_id = ?", [branchID])
                try collectReached(from: new, branchID: branchID)
            }
            try addCollected(branchID: branchID)
        case .recompute(let new):
            try db.execute("DELETE FROM branch_commits WHERE branch_id = ?", [branchID])
            try collectReached(from: new, branchID: branchID)
            try addCollected(branchID: branchID)
        }
    }

    /// Collects into `branch_reached` the stored commits `head` reaches through
    /// stored parents, not going past commits already in the branch (its rows are
    /// closed under parents). A walk from the new head meets the previous head at
    /// that edge exactly when the move was a fast-forward. Collected first, then
    /// inserted: rows inserted while the walk runs would stop it early. Walked by
    /// commit id (a parent's sha looked up once, when it is reached), and the
    /// collected ids inserted in order: each a fraction of the time by sha
    /// (docs/MEASURED-REASONS.md, "Measured reasons: branch membership").
    private func collectReached(from head: String, branchID: Int64) throws {
        try db.execute("CREATE TEMP TABLE IF NOT EXISTS branch_reached (id INTEGER PRIMARY KEY)")
        try db.execute("DELETE FROM branch_reached")
        try db.execute(
            """
            WITH RECURSIVE reached(id) AS (
                SELECT id FROM commits WHERE sha = ?1
                UNION
                SELECT parent.id FROM reached r
                JOIN commit_parents cp ON cp.commit_id = r.id
                JOIN commits parent ON parent.sha = cp.parent_sha
                WHERE NOT EXISTS (SELECT 1 FROM branch_commits bc WHERE bc.branch_id = ?2 AND bc.commit_id = r.id)
            )
            INSERT OR IGNORE INTO branch_reached (id) SELECT id FROM reached
            """, [head, branchID])
    }

    private func addCollected(branchID: Int64) throws {
        try db.execute("INSERT OR IGNORE INTO branch_commits (branch_id, commit_id) SELECT ?, id FROM branch_reached", [branchID])
    }
}
