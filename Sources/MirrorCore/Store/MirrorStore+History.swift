import SQLite

/// Graph questions over the stored parents: ancestry, and dropping what a
/// force-push made unreachable.
extension MirrorStore {
    /// Whether `ancestor` is reachable from `descendant` through stored parents.
    /// Cheap for a fast-forward (stops when found); walks the stored ancestry otherwise.
    public func isAncestor(_ ancestor: String, of descendant: String) throws -> Bool {
        try db.prepare("""
            WITH RECURSIVE ancestry(sha) AS (
                SELECT ?1
                UNION
                SELECT cp.parent_sha FROM ancestry a
                JOIN commits c ON c.sha = a.sha
                JOIN commit_parents cp ON cp.commit_id = c.id
            )
            SELECT 1 FROM ancestry WHERE sha = ?2 LIMIT 1
            """).bind([descendant, ancestor]).first { _ in true } ?? false
    }

    /// The heads recorded for the repository's other mirrored branches.
    func otherBranchHeads(repositoryID: Int64, excluding branch: String) throws -> [String] {
        try db.prepare("SELECT head_sha FROM sync_state WHERE repository_id = ? AND branch != ? AND head_sha IS NOT NULL")
            .bind([repositoryID, branch]).map { $0.string(0) }
    }

    /// After a history rewrite: removes the repository's commits that no mirrored
    /// head reaches any more, and deletes commits no repository holds. Returns
    /// how many commits left the repository.
    public func pruneUnreachable(repositoryID: Int64, heads: [String]) throws -> Int {
        try write {
            try db.execute("CREATE TEMP TABLE IF NOT EXISTS prune_heads (sha TEXT PRIMARY KEY) WITHOUT ROWID")
            try db.execute("DELETE FROM prune_heads")
            for head in heads { try db.execute("INSERT OR IGNORE INTO prune_heads (sha) VALUES (?)", [head]) }
            try db.execute("CREATE TEMP TABLE IF NOT EXISTS pruned (commit_id INTEGER PRIMARY KEY)")
            try db.execute("DELETE FROM pruned")
            try db.execute("""
                WITH RECURSIVE reachable(sha) AS (
                    SELECT sha FROM prune_heads
                    UNION
                    SELECT cp.parent_sha FROM reachable r
                    JOIN commits c ON c.sha = r.sha
                    JOIN commit_parents cp ON cp.commit_id = c.id
                )
                INSERT INTO pruned (commit_id)
                SELECT rc.commit_id FROM repository_commits rc
                WHERE rc.repository_id = ?1
                  AND rc.commit_id NOT IN (SELECT c.id FROM reachable r JOIN commits c ON c.sha = r.sha)
                """, [repositoryID])
            try db.execute("DELETE FROM repository_commits WHERE repository_id = ? AND commit_id IN (SELECT commit_id FROM pruned)",
                           [repositoryID])
            let removed = db.changes
            try db.execute("""
                DELETE FROM commits WHERE id IN (SELECT commit_id FROM pruned)
                AND NOT EXISTS (SELECT 1 FROM repository_commits rc WHERE rc.commit_id = commits.id)
                """)
            return removed
        }
    }
}
