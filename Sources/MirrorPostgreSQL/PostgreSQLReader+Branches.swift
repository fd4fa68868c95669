import MirrorBookkeeping
import MirrorCore
import PostgreSQL

// Reading `branch_commits` (schema version 3): which branches `query --branch`
// selects, and `check`'s comparison of each branch's rows with its head.

extension PostgreSQLReader {
    /// The ids of the mirrored branches `selection` matches (of one repository, or of every one).
    func branchIDs(_ selection: BranchSelection, repositoryID: Int64?) throws -> [Int64] {
        let rows =
            try repositoryID.map {
                try connection.execute("SELECT id, name FROM repository_branches WHERE repository_id = $1 ORDER BY id", [$0])
            } ?? connection.execute("SELECT id, name FROM repository_branches ORDER BY id")
        return (0..<rows.count).compactMap { row in
            guard let id = rows.int64(row, 0), let name = rows.string(row, 1), selection.matches(name) else { return nil }
            return id
        }
    }
}

extension PostgreSQLReader {
    /// `check`: the branch's rows against what `head` reaches through stored parents.
    func membershipCheck(repositoryID: Int64, branch: String, head: String) throws -> BranchMembershipCheck {
        let row = try connection.execute(
            """
            WITH RECURSIVE reach(sha) AS (
                SELECT $1::text
                UNION
                SELECT cp.parent_sha FROM reach r JOIN commits c ON c.sha = r.sha JOIN commit_parents cp ON cp.commit_id = c.id
            ),
            reached AS MATERIALIZED (SELECT c.id FROM reach r JOIN commits c ON c.sha = r.sha),
            branch_rows AS MATERIALIZED (
                SELECT bc.commit_id FROM branch_commits bc JOIN repository_branches b ON b.id = bc.branch_id
                WHERE b.repository_id = $2::bigint AND b.name = $3::text)
            SELECT (SELECT count(*) FROM branch_rows), (SELECT count(*) FROM reached),
                   (SELECT count(*) FROM reached WHERE id NOT IN (SELECT commit_id FROM branch_rows)),
                   (SELECT count(*) FROM branch_rows WHERE commit_id NOT IN (SELECT id FROM reached))
            """, [head, repositoryID, branch])
        return BranchMembershipCheck(
            rows: row.int(0, 0) ?? 0, reached: row.int(0, 1) ?? 0, missing: row.int(0, 2) ?? 0, extra: row.int(0, 3) ?? 0)
    }
}
