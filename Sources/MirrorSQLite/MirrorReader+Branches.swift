import MirrorBookkeeping
import MirrorCore
import SQLite

// Reading `branch_commits` (schema version 9): which branches `query --branch`
// selects, and `check`'s comparison of each branch's rows with its head.

extension MirrorReader {
    /// The ids of the mirrored branches `selection` matches (of one repository, or of every one).
    func branchIDs(_ selection: BranchSelection, repositoryID: Int64?) throws -> [Int64] {
        let rows =
            try repositoryID.map {
                try db.prepare("SELECT id, name FROM repository_branches WHERE repository_id = ? ORDER BY id").bind([$0])
                    .map { (id: $0.int64(0), name: $0.string(1)) }
            } ?? db.prepare("SELECT id, name FROM repository_branches ORDER BY id").map { (id: $0.int64(0), name: $0.string(1)) }
        return rows.filter { selection.matches($0.name) }.map(\.id)
    }
}

extension MirrorReader {
    /// `check`: the branch's rows against what `head` reaches through stored parents.
    func membershipCheck(repositoryID: Int64, branch: String, head: String) throws -> BranchMembershipCheck {
        try db.prepare(
            """
            WITH RECURSIVE reach(sha) AS (
                SELECT ?1
                UNION
                SELECT cp.parent_sha FROM reach r JOIN commits c ON c.sha = r.sha JOIN commit_parents cp ON cp.commit_id = c.id
            ),
            reached AS MATERIALIZED (SELECT c.id FROM reach r JOIN commits c ON c.sha = r.sha),
            branch_rows AS MATERIALIZED (
                SELECT bc.commit_id FROM branch_commits bc JOIN repository_branches b ON b.id = bc.branch_id
                WHERE b.repository_id = ?2 AND b.name = ?3)
            SELECT (SELECT count(*) FROM branch_rows), (SELECT count(*) FROM reached),
                   (SELECT count(*) FROM reached WHERE id NOT IN (SELECT commit_id FROM branch_rows)),
                   (SELECT count(*) FROM branch_rows WHERE commit_id NOT IN (SELECT id FROM reached))
            """
        ).bind([head, repositoryID, branch]).first {
            BranchMembershipCheck(rows: $0.int(0), reached: $0.int(1), missing: $0.int(2), extra: $0.int(3))
        } ?? BranchMembershipCheck(rows: 0, reached: 0, missing: 0, extra: 0)
    }
}
