import MirrorCore
import PostgreSQL

/// The per-branch sync state as `status` and the sync engine see it: one query
/// and one mapping, for the writer and the reader alike.
enum SyncStateRows {
    private static let query = """
        SELECT r.full_name, s.branch, s.head_sha, s.head_etag, s.complete, s.last_attempt_at, s.last_success_at,
               s.last_error, s.rate_limit_remaining, s.rate_limit_reset_at,
               (SELECT count(*) FROM sync_walks w WHERE w.repository_id = s.repository_id AND w.branch = s.branch),
               (SELECT count(*) FROM repository_commits rc WHERE rc.repository_id = s.repository_id),
               r.state, r.state_reason, CASE WHEN b.state = 'gone' THEN coalesce(b.gone_since, '') END
        FROM sync_state s JOIN repositories r ON r.id = s.repository_id
        LEFT JOIN repository_branches b ON b.repository_id = s.repository_id AND b.name = s.branch
        """

    /// One repository's branches (by name), or every repository's (by name, then branch), names in byte order.
    static func all(repositoryID: Int64?, on connection: PostgreSQLConnection) throws -> [SyncState] {
        let rows =
            try repositoryID.map {
                try connection.execute(query + " WHERE s.repository_id = $1::bigint ORDER BY s.branch COLLATE \"C\"", [$0])
            } ?? connection.execute(query + " ORDER BY lower(r.full_name COLLATE \"C\"), s.branch COLLATE \"C\"")
        return (0..<rows.count).map { state(rows, $0) }
    }

    static func one(repositoryID: Int64, branch: String, on connection: PostgreSQLConnection) throws -> SyncState? {
        let rows = try connection.execute(query + " WHERE s.repository_id = $1 AND s.branch = $2", [repositoryID, branch])
        return rows.count > 0 ? state(rows, 0) : nil
    }

    private static func state(_ rows: QueryResult, _ row: Int) -> SyncState {
        SyncState(
            repository: rows.string(row, 0) ?? "", branch: rows.string(row, 1) ?? "", headSHA: rows.string(row, 2),
            headETag: rows.string(row, 3), complete: rows.bool(row, 4) ?? false, lastAttemptAt: rows.string(row, 5),
            lastSuccessAt: rows.string(row, 6), lastError: rows.string(row, 7), rateLimitRemaining: rows.int(row, 8),
            rateLimitResetAt: rows.string(row, 9), pendingWalks: rows.int(row, 10) ?? 0, commits: rows.int(row, 11) ?? 0,
            repositoryState: rows.string(row, 12).flatMap(RepositoryState.init(rawValue:)) ?? .active,
            stateReason: rows.string(row, 13), branchGoneSince: rows.string(row, 14))
    }
}
