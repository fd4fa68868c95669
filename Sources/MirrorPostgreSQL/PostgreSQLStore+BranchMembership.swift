import Foundation
import MirrorBookkeeping
import MirrorCore
import PostgreSQL

// `branch_commits` kept by the writer (schema version 3): called inside the
// transaction that records a branch's head, so a reader never sees a head
// without the commits it reaches. The rule is BranchMembershipUpdate's
// (MirrorCore), the same as the SQLite store's (MirrorSQLite/BranchMembership.swift).

extension PostgreSQLStore {
    /// Brings the branch's rows from what its previous head reached to what
    /// `head` reaches. Call inside the transaction that records `head`, before
    /// `sync_state` is updated (the previous head is read from it).
    public func updateBranchCommits(repositoryID: Int64, branch: String, head: String?) throws {
        let previous = try connection.execute(
            "SELECT head_sha, complete FROM sync_state WHERE repository_id = $1 AND branch = $2", [repositoryID, branch])
        let previousHead = previous.count > 0 ? previous.string(0, 0) : nil
        let previousComplete = previous.count > 0 ? previous.bool(0, 1) ?? false : false
        let (branchID, rowsKnown, returned) = try branchRow(repositoryID: repositoryID, branch: branch)
        // A gone branch back on GitHub holds its commits on-branch again (`markBranchGone` marked them).
        if returned, let head, try hasOffBranchCommits(repositoryID: repositoryID) {
            _ = try remark(
                repositoryID: repositoryID, heads: try mirroredHeads(repositoryID: repositoryID, excluding: branch) + [head], at: Date())
        }
        switch BranchMembershipUpdate(previousHead: previousHead, previousComplete: rowsKnown && previousComplete, head: head) {
        case .none:
            return
        case .clear:
            try connection.execute("DELETE FROM branch_commits WHERE branch_id = $1", [branchID])
        case .extendOrRecompute(let old, let new):
            let fastForward =
                try connection.execute(
                    Self.reachedWithinBranch + " SELECT 1 FROM reached WHERE sha = $3 LIMIT 1", [new, branchID, old]
                ).count > 0
            if fastForward {
                try addReached(from: new, branchID: branchID)
            } else {
                try recompute(from: new, branchID: branchID, repositoryID: repositoryID)
            }
        case .recompute(let new):
            try recompute(from: new, branchID: branchID, repositoryID: repositoryID)
        }
    }

    /// The shas `head` reaches through stored parents, not going past commits
    /// already in the branch (its rows are closed under parents). A walk from the
    /// new head meets the previous head at that edge exactly when the move was a
    /// fast-forward. The walk reads the rows as the statement began, so an insert
    /// fed by it does not cut it short.
    private static let reachedWithinBranch = """
        WITH RECURSIVE reached(sha) AS (
            SELECT $1::text
            UNION
            SELECT cp.parent_sha FROM reached r
            JOIN commits c ON c.sha = r.sha
            JOIN commit_parents cp ON cp.commit_id = c.id
            WHERE NOT EXISTS (SELECT 1 FROM branch_commits bc WHERE bc.branch_id = $2::bigint AND bc.commit_id = c.id)
        )
        """

    /// The branch's rows from scratch: every commit `head` reaches through stored
    /// parents. With no row of the branch left to stop at, the walk carries commit
    /// ids, each step one look-up of the commit's parents and one of each parent
    /// by sha (a walk by sha looks each commit up by sha and again to insert it,
    /// and takes half as long again). The parents are read in a subquery
    /// the planner cannot flatten (`OFFSET 0`), so each step is those index look-ups
    /// whatever the planner estimates of the walk's size: joined flat, it may
    /// choose to hash all of `commit_parents` at every step, which is many times slower
    /// (docs/MEASURED-REASONS.md, "Measured reasons: branch membership").
    /// The rows are inserted without a conflict check (a third of the insert's
    /// time): the walk's ids are distinct and the branch has no row left; a
    /// writer doing the same at once (which the repository's lock prevents) would
    /// fail this transaction, never change what it stores.
    private func recompute(from head: String, branchID: Int64, repositoryID: Int64) throws {
        try connection.execute("DELETE FROM branch_commits WHERE branch_id = $1", [branchID])
        if try reachesExactlyTheRepositorysCommits(head, branchID: branchID, repositoryID: repositoryID) {
            try connection.execute(
                "INSERT INTO branch_commits (branch_id, commit_id) SELECT $1, commit_id FROM repository_commits WHERE repository_id = $2",
                [branchID, repositoryID])
            return
        }
        try connection.execute(
            """
            WITH RECURSIVE reached(id) AS (
                SELECT id FROM commits WHERE sha = $1
                UNION
                SELECT parent.id FROM reached r, LATERAL (
                    SELECT p.id FROM commit_parents cp JOIN commits p ON p.sha = cp.parent_sha
                    WHERE cp.commit_id = r.id OFFSET 0) parent
            )
            INSERT INTO branch_commits (branch_id, commit_id) SELECT $2, id FROM reached
            """, [head, branchID])
    }

    private func addReached(from head: String, branchID: Int64) throws {
        try connection.execute(
            Self.reachedWithinBranch
                + " INSERT INTO branch_commits (branch_id, commit_id) SELECT $2, c.id FROM reached r JOIN commits c ON c.sha = r.sha ON CONFLICT DO NOTHING",
            [head, branchID])
    }

    /// Whether `head` reaches exactly the repository's commits, proved in one
    /// pass of hash joins instead of a walk of one step a commit, in half the
    /// time of a first sync's walk and its insert (BENCHMARKS.md, "Measured
    /// reasons: branch membership").
    /// It holds when the head is one of them, none of their stored parents lies
    /// outside them, and every one but the head is a parent of another. Then any
    /// of them is reached: follow children up from it within them, and the chain
    /// (finite, the history has no cycles) can only end at the head; and nothing
    /// else is, as a stored parent of one of them is one of them. Tried only for
    /// a repository's only branch: with another one (or after a force-push) the
    /// proof fails and would only cost its time before the walk.
    private func reachesExactlyTheRepositorysCommits(_ head: String, branchID: Int64, repositoryID: Int64) throws -> Bool {
        let otherBranches = try connection.execute(
            "SELECT 1 FROM repository_branches WHERE repository_id = $1 AND id <> $2 LIMIT 1", [repositoryID, branchID])
        guard otherBranches.count == 0 else { return false }
        // Hash joins of the whole history: memory enough not to spill them to disk (this transaction only).
        try connection.execute(
            "SELECT set_config('work_mem', '65536kB', true) FROM pg_settings WHERE name = 'work_mem' AND setting::bigint < 65536")
        // Joined table to table, not through CTEs: a CTE hides its rows' statistics, and
        // the planner then sorts the whole history for a merge join.
        let proof = try connection.execute(
            """
            SELECT
                EXISTS (SELECT 1 FROM repository_commits rc JOIN commits c ON c.id = rc.commit_id
                        WHERE rc.repository_id = $2 AND c.sha = $1)
                AND (SELECT count(*) FROM repository_commits rc
                     JOIN commit_parents cp ON cp.commit_id = rc.commit_id JOIN commits p ON p.sha = cp.parent_sha
                     WHERE rc.repository_id = $2
                         AND NOT EXISTS (SELECT 1 FROM repository_commits o WHERE o.repository_id = $2 AND o.commit_id = p.id)) = 0
                AND (SELECT count(*) FROM repository_commits rc JOIN commits c ON c.id = rc.commit_id
                     WHERE rc.repository_id = $2 AND c.sha <> $1
                         AND NOT EXISTS (
                             SELECT 1 FROM commit_parents cp JOIN repository_commits child ON child.commit_id = cp.commit_id
                             WHERE child.repository_id = $2 AND cp.parent_sha = c.sha)) = 0
            """, [head, repositoryID])
        return proof.bool(0, 0) == true
    }
}
