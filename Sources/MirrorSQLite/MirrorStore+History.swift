import Foundation
import MirrorBookkeeping
import MirrorCore
import SQLite

/// Graph questions over the stored parents: ancestry, and which commits a
/// history rewrite left off the mirrored branches. Nothing here deletes a
/// commit except `pruneOffBranch`, which only an explicit user command calls.
extension MirrorStore {
    /// Whether `ancestor` is reachable from `descendant` through stored parents.
    /// Cheap for a fast-forward (stops when found); walks the stored ancestry otherwise.
    public func isAncestor(_ ancestor: String, of descendant: String) throws -> Bool {
        try db.prepare(
            """
            WITH RECURSIVE ancestry(sha) AS (
                SELECT ?1
                UNION
                SELECT cp.parent_sha FROM ancestry a
                JOIN commits c ON c.sha = a.sha
                JOIN commit_parents cp ON cp.commit_id = c.id
            )
            SELECT 1 FROM ancestry WHERE sha = ?2 LIMIT 1
            """
        ).bind([descendant, ancestor]).first { _ in true } ?? false
    }

    /// The heads recorded for the repository's other mirrored branches.
    public func otherBranchHeads(repositoryID: Int64, excluding branch: String) throws -> [String] {
        try mirroredHeads(repositoryID: repositoryID, excluding: branch)
    }

    /// The heads of the repository's branches that hold commits on-branch: every
    /// branch with a head, but gone ones (and `branch`, when given).
    public func mirroredHeads(repositoryID: Int64, excluding branch: String? = nil) throws -> [String] {
        try db.prepare(
            """
            SELECT s.head_sha FROM sync_state s
            WHERE s.repository_id = ?1 AND s.head_sha IS NOT NULL AND (?2 IS NULL OR s.branch != ?2)
              AND NOT EXISTS (
                SELECT 1 FROM repository_branches b WHERE b.repository_id = ?1 AND b.name = s.branch AND b.state = 'gone')
            """
        ).bind([repositoryID, branch]).map { $0.string(0) }
    }

    public func holdsWholeHistory(of sha: String, repositoryID: Int64) throws -> Bool {
        try db.prepare(
            """
            SELECT 1 FROM commits c
            JOIN branch_commits bc ON bc.commit_id = c.id
            JOIN repository_branches b ON b.id = bc.branch_id
            JOIN sync_state s ON s.repository_id = b.repository_id AND s.branch = b.name
            WHERE c.sha = ?1 AND b.repository_id = ?2 AND b.state = 'active' AND s.complete = 1
            LIMIT 1
            """
        ).bind([sha, repositoryID]).first { _ in true } ?? false
    }

    /// Whether a rewrite left any of the repository's commits off its branches.
    public func hasOffBranchCommits(repositoryID: Int64) throws -> Bool {
        try db.prepare("SELECT 1 FROM repository_commits WHERE repository_id = ? AND off_branch_since IS NOT NULL LIMIT 1")
            .bind([repositoryID]).first { _ in true } ?? false
    }

    /// After a confirmed history rewrite: marks the repository's commits that no
    /// mirrored head reaches as off-branch (they stay stored), and clears the mark
    /// of commits that a head reaches again. One transaction.
    public func markOffBranch(repositoryID: Int64, heads: [String], at date: Date) throws -> BranchMarks {
        try write { try remark(repositoryID: repositoryID, heads: heads, at: date) }
    }

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
        var marks = BranchMarks()
        try db.execute(
            """
            UPDATE repository_commits SET off_branch_since = ?2
            WHERE repository_id = ?1 AND off_branch_since IS NULL
              AND commit_id NOT IN (SELECT commit_id FROM reachable_commits)
            """, [repositoryID, ISO8601Timestamp.format(date)])
        marks.leftBranch = db.changes
        try db.execute(
            """
            UPDATE repository_commits SET off_branch_since = NULL
            WHERE repository_id = ?1 AND off_branch_since IS NOT NULL
              AND commit_id IN (SELECT commit_id FROM reachable_commits)
            """, [repositoryID])
        marks.returned = db.changes
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
