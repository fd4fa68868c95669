import MirrorBookkeeping
import MirrorCore
import SQLite

// `check` on a SQLite store: the values (`StoreCheck`) are MirrorCore's.

extension MirrorReader {
    /// Integrity, foreign keys, and per branch: the complete flag, pending walks,
    /// and parents referenced by the repository's commits that it does not hold
    /// (0 for an exact mirror: the history is closed down to its roots).
    public func check() throws -> StoreCheck {
        // One snapshot for every statement: a sync committing between two of them
        // (a head moved on, its branch rows with it) would read as a damaged store.
        try db.transaction(.deferred) { try checkInOneSnapshot() }
    }

    private func checkInOneSnapshot() throws -> StoreCheck {
        let integrity = try db.prepare("PRAGMA integrity_check").map { $0.string(0) }
        let foreignKeys = try db.prepare("PRAGMA foreign_key_check").map { row in
            "\(row.string(0)) row \(row.optionalInt(1).map(String.init) ?? "?") → \(row.string(2))"
        }
        // The index's per-document table has a row for each indexed message
        // (PRAGMA integrity_check does not look inside FTS5 tables before SQLite 3.44).
        // Commits beyond its watermark are not indexed yet, by design.
        let unindexed =
            try db.scalarInt(
                """
                SELECT count(*) FROM commits c
                WHERE c.id <= \(MessageIndexCoverage.watermark)
                  AND NOT EXISTS (SELECT 1 FROM commits_fts_docsize d WHERE d.id = c.id)
                """) ?? 0
        let missing = try db.prepare(
            """
            SELECT count(DISTINCT cp.parent_sha) FROM repository_commits rc
            JOIN commit_parents cp ON cp.commit_id = rc.commit_id
            WHERE rc.repository_id = ?1 AND rc.off_branch_since IS NULL AND NOT EXISTS (
                SELECT 1 FROM commits p JOIN repository_commits prc ON prc.commit_id = p.id AND prc.repository_id = ?1
                WHERE p.sha = cp.parent_sha)
            """)
        let headStored = try db.prepare(
            """
            SELECT 1 FROM commits c JOIN repository_commits rc ON rc.commit_id = c.id AND rc.repository_id = ?
            WHERE c.sha = ?
            """)
        let rows = try db.prepare(
            """
            SELECT s.repository_id, r.full_name, s.branch, s.head_sha, s.complete,
                   (SELECT count(*) FROM sync_walks w WHERE w.repository_id = s.repository_id AND w.branch = s.branch),
                   (SELECT count(*) FROM repository_commits rc WHERE rc.repository_id = s.repository_id),
                   r.state = 'active'
            FROM sync_state s JOIN repositories r ON r.id = s.repository_id
            ORDER BY r.full_name, s.branch
            """
        ).map { row in
            (
                id: row.int64(0), repository: row.string(1), branch: row.string(2), head: row.optionalString(3),
                complete: row.int(4) != 0, walks: row.int(5), commits: row.int(6), mirrored: row.int(7) != 0
            )
        }
        var branches: [BranchCompleteness] = []
        for row in rows {
            let missingParents = try missing.bind([row.id]).first { $0.int(0) } ?? 0
            let stored = try row.head.map { try headStored.bind([row.id, $0]).first { _ in true } ?? false }
            var branch = BranchCompleteness(
                repository: row.repository, branch: row.branch, commits: row.commits, headSHA: row.head,
                markedComplete: row.complete, pendingWalks: row.walks, missingParents: missingParents,
                headStored: stored, mirrored: row.mirrored)
            if row.complete, let head = row.head {
                branch.membership = try membershipCheck(repositoryID: row.id, branch: row.branch, head: head)
            }
            branches.append(branch)
        }
        var check = StoreCheck(
            integrity: integrity, foreignKeyViolations: foreignKeys, unindexedMessages: unindexed, branches: branches)
        check.messageIndexLag = try MessageIndexCoverage.lag(in: db)
        check.miscountedAuthors = try db.scalarInt(Self.miscountedAuthors) ?? 0
        check.staleTagContainment = try TagRows.staleContainment(in: db)
        check.commitsWithoutPaths = try StatisticsRows.commitsWithoutPaths(in: db)
        return check
    }

    /// Authors whose kept total differs from a count of their commits (either side
    /// missing counts as 0).
    static let miscountedAuthors = """
        SELECT count(*) FROM (SELECT author_id, count(*) AS commits FROM commits GROUP BY author_id) t
        FULL JOIN (SELECT author_id, commits FROM author_commit_counts WHERE commits <> 0) n USING (author_id)
        WHERE t.commits IS NOT n.commits
        """
}
