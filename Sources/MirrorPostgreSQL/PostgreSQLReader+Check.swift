import MirrorBookkeeping
import MirrorCore
import PostgreSQL

// `check` on a PostgreSQL store. The server keeps pages, foreign keys and the
// message index consistent itself; what can still be wrong is an index left
// invalid (a failed build), a foreign key never validated, a row of the page
// tables (which have no foreign keys: PostgreSQLSchema+BulkPages.swift) naming a
// row that is not there, and a branch whose history does not match what the sync
// recorded, as in MirrorReader+Check.swift.

extension PostgreSQLReader {
    public func check() throws -> StoreCheck {
        try read {
            let invalid = try connection.execute(
                """
                SELECT c.relname FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
                JOIN pg_namespace n ON n.oid = c.relnamespace
                WHERE n.nspname = current_schema() AND NOT (i.indisvalid AND i.indisready)
                ORDER BY c.relname::text COLLATE "C"
                """)
            let integrity = (0..<invalid.count).map { "index \(invalid.string($0, 0) ?? "?") is invalid" }
            let unvalidated = try connection.execute(
                """
                SELECT c.conrelid::regclass::text, c.conname FROM pg_constraint c
                JOIN pg_namespace n ON n.oid = c.connamespace
                WHERE n.nspname = current_schema() AND c.contype = 'f' AND NOT c.convalidated
                ORDER BY c.conrelid::regclass::text COLLATE "C", c.conname::text COLLATE "C"
                """)
            let foreignKeys =
                (0..<unvalidated.count).map {
                    "\(unvalidated.string($0, 0) ?? "?") \(unvalidated.string($0, 1) ?? "?") not validated"
                } + (try danglingReferences())
            // Every message is searchable: an index hit is rechecked against the row, and a
            // message the index lacked would still be read by the scan PostgreSQL falls back to.
            var check = StoreCheck(
                integrity: integrity.isEmpty ? ["ok"] : integrity, foreignKeyViolations: foreignKeys, unindexedMessages: 0,
                branches: try branches())
            check.messageIndexLag = try commitsAwaitingMessageIndex()
            check.miscountedAuthors =
                try connection.execute(
                    """
                    SELECT count(*) FROM (SELECT author_id, count(*) AS commits FROM commits GROUP BY author_id) t
                    FULL JOIN (SELECT author_id, commits FROM author_commit_counts WHERE commits <> 0) n USING (author_id)
                    WHERE t.commits IS DISTINCT FROM n.commits
                    """
                ).int(0, 0) ?? 0
            check.staleTagContainment = try TagRows.staleContainment(in: connection)
            check.commitsWithoutPaths = try StatisticsRows.commitsWithoutPaths(in: connection)
            return check
        }
    }

    /// Every commit while the message index is away (a large bulk load leaves it
    /// to the next writer: PostgreSQLStore+Batches.swift), none once it is built:
    /// then the planner's one-time filter skips the count.
    public func messageIndexLag() throws -> Int {
        try read { try commitsAwaitingMessageIndex() }
    }

    private func commitsAwaitingMessageIndex() throws -> Int {
        try connection.execute(
            """
            SELECT count(*) FROM commits
            WHERE NOT EXISTS (SELECT 1 FROM pg_indexes WHERE schemaname = current_schema() AND indexname = $1)
            """, [BulkLoadIndexes.messageIndex.name]
        ).int(0, 0) ?? 0
    }

    /// The page tables' references, each as `table.column → table`, checked as a
    /// foreign key would be: "commit_parents.commit_id → commits: 3 rows" when broken.
    private static let pageReferences = [
        ("commits", "author_id", "authors"), ("commits", "committer_id", "authors"),
        ("commit_parents", "commit_id", "commits"), ("commit_coauthors", "commit_id", "commits"),
        ("commit_coauthors", "author_id", "authors"), ("repository_commits", "commit_id", "commits"),
        ("repository_commits", "repository_id", "repositories"), ("branch_commits", "commit_id", "commits"),
        ("branch_commits", "branch_id", "repository_branches"), ("commit_changes", "commit_id", "commits"),
        ("commit_changes", "path_id", "paths"), ("commit_changes_read", "commit_id", "commits"),
    ]

    private func danglingReferences() throws -> [String] {
        // Names from the fixed list above, never from input.
        let counts = Self.pageReferences.map { table, column, parent in
            "(SELECT count(*) FROM \(table) x WHERE NOT EXISTS (SELECT 1 FROM \(parent) p WHERE p.id = x.\(column)))"
        }
        let row = try connection.execute("SELECT " + counts.joined(separator: ", "))
        return Self.pageReferences.enumerated().compactMap { index, reference in
            let dangling = row.int(0, index) ?? 0
            guard dangling > 0 else { return nil }
            return "\(reference.0).\(reference.1) → \(reference.2): \(dangling) \(dangling == 1 ? "row" : "rows") naming none"
        }
    }

    private func branches() throws -> [BranchCompleteness] {
        let rows = try connection.execute(
            """
            SELECT s.repository_id, r.full_name, s.branch, s.head_sha, s.complete,
                   (SELECT count(*) FROM sync_walks w WHERE w.repository_id = s.repository_id AND w.branch = s.branch),
                   (SELECT count(*) FROM repository_commits rc WHERE rc.repository_id = s.repository_id),
                   r.state = 'active',
                   (SELECT count(DISTINCT cp.parent_sha) FROM repository_commits rc
                    JOIN commit_parents cp ON cp.commit_id = rc.commit_id
                    WHERE rc.repository_id = s.repository_id AND rc.off_branch_since IS NULL AND NOT EXISTS (
                        SELECT 1 FROM commits p JOIN repository_commits prc
                            ON prc.commit_id = p.id AND prc.repository_id = s.repository_id
                        WHERE p.sha = cp.parent_sha)),
                   (SELECT count(*) > 0 FROM commits c JOIN repository_commits rc
                        ON rc.commit_id = c.id AND rc.repository_id = s.repository_id
                    WHERE c.sha = s.head_sha)
            FROM sync_state s JOIN repositories r ON r.id = s.repository_id
            ORDER BY lower(r.full_name COLLATE "C"), s.branch COLLATE "C"
            """)
        return try (0..<rows.count).map { row in
            let head = rows.string(row, 3)
            var branch = BranchCompleteness(
                repository: rows.string(row, 1) ?? "", branch: rows.string(row, 2) ?? "", commits: rows.int(row, 6) ?? 0,
                headSHA: head, markedComplete: rows.bool(row, 4) ?? false, pendingWalks: rows.int(row, 5) ?? 0,
                missingParents: rows.int(row, 8) ?? 0, headStored: head == nil ? nil : rows.bool(row, 9) ?? false,
                mirrored: rows.bool(row, 7) ?? true)
            if branch.markedComplete, let head, let repositoryID = rows.int64(row, 0) {
                branch.membership = try membershipCheck(repositoryID: repositoryID, branch: branch.branch, head: head)
            }
            return branch
        }
    }
}
