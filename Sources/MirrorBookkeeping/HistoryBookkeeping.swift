import Foundation
import MirrorCore

// Graph questions over the stored parents, as every store asks them: ancestry,
// the mirrored heads, and which commits a history rewrite left off the
// mirrored branches. Nothing here deletes a commit.

extension SQLBookkeeping {
    /// Whether `ancestor` is reachable from `descendant` through stored parents.
    /// Cheap for a fast-forward (stops when found); walks the stored ancestry otherwise.
    public func isAncestor(_ ancestor: String, of descendant: String) throws -> Bool {
        try session.firstRow(HistoryStatements.isAncestor, [descendant, ancestor]) { _ in true } ?? false
    }

    /// The heads recorded for the repository's other mirrored branches.
    public func otherBranchHeads(repositoryID: Int64, excluding branch: String) throws -> [String] {
        try mirroredHeads(repositoryID: repositoryID, excluding: branch)
    }

    /// The heads of the repository's branches that hold commits on-branch: every
    /// branch with a head, but gone ones (and `branch`, when given).
    public func mirroredHeads(repositoryID: Int64, excluding branch: String? = nil) throws -> [String] {
        try session.rows(HistoryStatements.mirroredHeads, [repositoryID, branch]) { $0.string(0) }.compactMap { $0 }
    }

    /// Whether `sha` is on an active branch of the repository whose whole history is stored.
    public func holdsWholeHistory(of sha: String, repositoryID: Int64) throws -> Bool {
        try session.firstRow(HistoryStatements.holdsWholeHistory, [sha, repositoryID]) { _ in true } ?? false
    }

    /// Whether a rewrite left any of the repository's commits off its branches.
    public func hasOffBranchCommits(repositoryID: Int64) throws -> Bool {
        try session.firstRow(HistoryStatements.hasOffBranch, [repositoryID]) { _ in true } ?? false
    }

    /// After a confirmed history rewrite: marks the repository's commits that no
    /// mirrored head reaches as off-branch (they stay stored), and clears the mark
    /// of commits that a head reaches again. One transaction.
    public func markOffBranch(repositoryID: Int64, heads: [String], at date: Date) throws -> BranchMarks {
        try write { try remark(repositoryID: repositoryID, heads: heads, at: date) }
    }

    /// Marks off-branch the repository's commits missing from the temporary
    /// `reachable_commits` (what the heads reach), and on-branch again those in
    /// it; inside the caller's transaction.
    public func markAgainstReachable(repositoryID: Int64, at date: Date) throws -> BranchMarks {
        var marks = BranchMarks()
        marks.leftBranch = try session.run(HistoryStatements.leftBranch, [repositoryID, ISO8601Timestamp.format(date)])
        marks.returned = try session.run(HistoryStatements.returned, [repositoryID])
        return marks
    }
}

enum HistoryStatements {
    static let isAncestor = PortableSQL(
        """
        WITH RECURSIVE ancestry(sha) AS (
            SELECT CAST(?1 AS text)
            UNION
            SELECT cp.parent_sha FROM ancestry a
            JOIN commits c ON c.sha = a.sha
            JOIN commit_parents cp ON cp.commit_id = c.id
        )
        SELECT 1 FROM ancestry WHERE sha = ?2 LIMIT 1
        """)
    static let mirroredHeads = PortableSQL(
        """
        SELECT s.head_sha FROM sync_state s
        WHERE s.repository_id = ?1 AND s.head_sha IS NOT NULL AND (CAST(?2 AS text) IS NULL OR s.branch <> ?2)
          AND NOT EXISTS (
            SELECT 1 FROM repository_branches b WHERE b.repository_id = ?1 AND b.name = s.branch AND b.state = 'gone')
        """)
    // SQLite's `complete` is 0 or 1, PostgreSQL's a boolean: either is its own truth value.
    static let holdsWholeHistory = PortableSQL(
        """
        SELECT 1 FROM commits c
        JOIN branch_commits bc ON bc.commit_id = c.id
        JOIN repository_branches b ON b.id = bc.branch_id
        JOIN sync_state s ON s.repository_id = b.repository_id AND s.branch = b.name
        WHERE c.sha = ?1 AND b.repository_id = ?2 AND b.state = 'active' AND s.complete
        LIMIT 1
        """)
    static let hasOffBranch = PortableSQL(
        "SELECT 1 FROM repository_commits WHERE repository_id = ? AND off_branch_since IS NOT NULL LIMIT 1")
    static let leftBranch = PortableSQL(
        """
        UPDATE repository_commits SET off_branch_since = ?2
        WHERE repository_id = ?1 AND off_branch_since IS NULL
          AND commit_id NOT IN (SELECT commit_id FROM reachable_commits)
        """)
    static let returned = PortableSQL(
        """
        UPDATE repository_commits SET off_branch_since = NULL
        WHERE repository_id = ?1 AND off_branch_since IS NOT NULL
          AND commit_id IN (SELECT commit_id FROM reachable_commits)
        """)
}
