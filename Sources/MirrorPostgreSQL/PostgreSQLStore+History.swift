import Foundation
import MirrorBookkeeping
import MirrorCore
import PostgreSQL

// History rewrites: which stored commits the mirrored heads still reach.

extension PostgreSQLStore {
    public func isAncestor(_ ancestor: String, of descendant: String) throws -> Bool {
        try connection.execute(
            """
            WITH RECURSIVE ancestry(sha) AS (
                SELECT $1::text
                UNION
                SELECT cp.parent_sha FROM ancestry a
                JOIN commits c ON c.sha = a.sha
                JOIN commit_parents cp ON cp.commit_id = c.id
            )
            SELECT 1 FROM ancestry WHERE sha = $2 LIMIT 1
            """, [descendant, ancestor]
        ).count > 0
    }

    public func otherBranchHeads(repositoryID: Int64, excluding branch: String) throws -> [String] {
        try mirroredHeads(repositoryID: repositoryID, excluding: branch)
    }

    /// The heads of the repository's branches that hold commits on-branch: every
    /// branch with a head, but gone ones (and `branch`, when given).
    public func mirroredHeads(repositoryID: Int64, excluding branch: String? = nil) throws -> [String] {
        let rows = try connection.execute(
            """
            SELECT s.head_sha FROM sync_state s
            WHERE s.repository_id = $1 AND s.head_sha IS NOT NULL AND ($2::text IS NULL OR s.branch <> $2::text)
              AND NOT EXISTS (
                SELECT 1 FROM repository_branches b WHERE b.repository_id = $1 AND b.name = s.branch AND b.state = 'gone')
            """, [repositoryID, branch])
        return (0..<rows.count).compactMap { rows.string($0, 0) }
    }

    public func holdsWholeHistory(of sha: String, repositoryID: Int64) throws -> Bool {
        try connection.execute(
            """
            SELECT 1 FROM commits c
            JOIN branch_commits bc ON bc.commit_id = c.id
            JOIN repository_branches b ON b.id = bc.branch_id
            JOIN sync_state s ON s.repository_id = b.repository_id AND s.branch = b.name
            WHERE c.sha = $1 AND b.repository_id = $2 AND b.state = 'active' AND s.complete
            LIMIT 1
            """, [sha, repositoryID]
        ).count > 0
    }

    public func hasOffBranchCommits(repositoryID: Int64) throws -> Bool {
        try connection.execute(
            "SELECT 1 FROM repository_commits WHERE repository_id = $1 AND off_branch_since IS NOT NULL LIMIT 1",
            [repositoryID]
        ).count > 0
    }

    public func markOffBranch(repositoryID: Int64, heads: [String], at date: Date) throws -> BranchMarks {
        try write { try remark(repositoryID: repositoryID, heads: heads, at: date) }
    }

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
        var marks = BranchMarks()
        marks.leftBranch =
            try connection.execute(
                """
                UPDATE repository_commits SET off_branch_since = $2
                WHERE repository_id = $1 AND off_branch_since IS NULL
                  AND commit_id NOT IN (SELECT commit_id FROM reachable_commits)
                """, [repositoryID, ISO8601Timestamp.format(date)]
            ).affectedRows
        marks.returned =
            try connection.execute(
                """
                UPDATE repository_commits SET off_branch_since = NULL
                WHERE repository_id = $1 AND off_branch_since IS NOT NULL
                  AND commit_id IN (SELECT commit_id FROM reachable_commits)
                """, [repositoryID]
            ).affectedRows
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
