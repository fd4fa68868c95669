import Foundation
import MirrorBookkeeping
import MirrorCore
import PostgreSQL

// History rewrites: which stored commits the mirrored heads still reach.

extension PostgreSQLStore {
    public func abandonWalks(_ walks: [Walk], repositoryID: Int64, heads: [String], at date: Date) throws -> BranchMarks {
        try write {
            try connection.execute("DELETE FROM sync_walks WHERE id = ANY($1::bigint[])", [BigIntArray(walks.map(\.id))])
            return try remark(repositoryID: repositoryID, heads: heads, at: date)
        }
    }

    /// Marks off-branch what `heads` no longer reach and clears the mark of what
    /// they reach again; nothing is deleted (only an explicit prune deletes).
    public func remark(repositoryID: Int64, heads: [String], at date: Date) throws -> BranchMarks {
        try connection.execute("CREATE TEMPORARY TABLE IF NOT EXISTS reachable_commits (commit_id bigint PRIMARY KEY)")
        try connection.execute("TRUNCATE reachable_commits")
        try connection.execute(
            """
            WITH RECURSIVE reachable(sha) AS (
                SELECT unnest($1::text[])
                UNION
                SELECT cp.parent_sha FROM reachable r
                JOIN commits c ON c.sha = r.sha
                JOIN commit_parents cp ON cp.commit_id = c.id
            )
            INSERT INTO reachable_commits (commit_id) SELECT c.id FROM reachable r JOIN commits c ON c.sha = r.sha
            ON CONFLICT DO NOTHING
            """, [TextArray(heads)])
        let marks = try markAgainstReachable(repositoryID: repositoryID, at: date)
        // A commit is off-branch when it is so in every repository holding it.
        try connection.execute(
            """
            UPDATE commits c SET off_branch = NOT EXISTS (
                SELECT 1 FROM repository_commits rc WHERE rc.commit_id = c.id AND rc.off_branch_since IS NULL)
            WHERE c.id IN (SELECT commit_id FROM repository_commits WHERE repository_id = $1)
              AND c.off_branch IS DISTINCT FROM NOT EXISTS (
                SELECT 1 FROM repository_commits rc WHERE rc.commit_id = c.id AND rc.off_branch_since IS NULL)
            """, [repositoryID])
        return marks
    }
}
