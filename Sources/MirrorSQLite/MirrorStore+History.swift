import Foundation
import MirrorBookkeeping
import MirrorCore
import SQLite

/// Which commits a history rewrite left off the mirrored branches, as SQLite
/// finds them (the questions every store asks alike are MirrorBookkeeping's).
/// Nothing here deletes a commit except `pruneOffBranch`, which only an
/// explicit user command calls.
extension MirrorStore {
    /// Drops walks pinned to heads the branch no longer reaches and marks what
    /// they stored off-branch (kept, hidden from queries), in one transaction: a
    /// kill between the two would leave those commits answered as branch history
    /// with no walk left to say so.
    public func abandonWalks(_ walks: [Walk], repositoryID: Int64, heads: [String], at date: Date) throws -> BranchMarks {
        try write {
            for walk in walks { try db.execute("DELETE FROM sync_walks WHERE id = ?", [walk.id]) }
            return try remark(repositoryID: repositoryID, heads: heads, at: date)
        }
    }

    /// `markOffBranch` inside a transaction the caller holds.
    public func remark(repositoryID: Int64, heads: [String], at date: Date) throws -> BranchMarks {
        try db.execute("CREATE TEMP TABLE IF NOT EXISTS marking_heads (sha TEXT PRIMARY KEY) WITHOUT ROWID")
        try db.execute("DELETE FROM marking_heads")
        for head in heads { try db.execute("INSERT OR IGNORE INTO marking_heads (sha) VALUES (?)", [head]) }
        try db.execute("CREATE TEMP TABLE IF NOT EXISTS reachable_commits (commit_id INTEGER PRIMARY KEY)")
        try db.execute("DELETE FROM reachable_commits")
        try db.execute(
            """
            WITH RECURSIVE reachable(sha) AS (
                SELECT sha FROM marking_heads
                UNION
                SELECT cp.parent_sha FROM reachable r
                JOIN commits c ON c.sha = r.sha
                JOIN commit_parents cp ON cp.commit_id = c.id
            )
            INSERT OR IGNORE INTO reachable_commits (commit_id) SELECT c.id FROM reachable r JOIN commits c ON c.sha = r.sha
            """)
        let marks = try markAgainstReachable(repositoryID: repositoryID, at: date)
        try refreshOffBranchFlags(repositoryID: repositoryID)
        return marks
    }

    /// Recomputes `commits.off_branch` for the repository's commits: set when no
    /// repository holds the commit on a branch. Call inside a transaction.
    private func refreshOffBranchFlags(repositoryID: Int64) throws {
        try db.execute(
            """
            UPDATE commits SET off_branch = NOT EXISTS (
                SELECT 1 FROM repository_commits rc WHERE rc.commit_id = commits.id AND rc.off_branch_since IS NULL)
            WHERE id IN (SELECT commit_id FROM repository_commits WHERE repository_id = ?)
            """, [repositoryID])
    }

    /// The explicit removal (`HistoryRemoval`; a user's prune command).
    public func pruneOffBranch(repositoryID: Int64?) throws -> Int {
        try write {
            if let repositoryID {
                try db.execute(
                    "DELETE FROM repository_commits WHERE repository_id = ? AND off_branch_since IS NOT NULL",
                    [repositoryID])
            } else {
                try db.execute("DELETE FROM repository_commits WHERE off_branch_since IS NOT NULL")
            }
            let removed = db.changes
            try db.execute(
                """
                DELETE FROM commits WHERE off_branch != 0
                AND NOT EXISTS (SELECT 1 FROM repository_commits rc WHERE rc.commit_id = commits.id)
                """)
            return removed
        }
    }

    public func offBranchCount(repositoryID: Int64?) throws -> Int {
        if let repositoryID {
            return try db.scalarInt(
                "SELECT count(*) FROM repository_commits WHERE repository_id = ? AND off_branch_since IS NOT NULL",
                [repositoryID]) ?? 0
        }
        return try db.scalarInt("SELECT count(*) FROM repository_commits WHERE off_branch_since IS NOT NULL") ?? 0
    }
}
