import PostgreSQL

/// Keeps PostgreSQL's planner informed while a sync fills the mirror's tables.
///
/// Every per-page statement probes the big tables for a page's few rows (is this
/// sha stored, is it already on the branch). PostgreSQL picks those plans from the
/// statistics ANALYZE last gathered, and autovacuum gathers them at most once a
/// minute, from committed rows only: during a first sync it believes the tables
/// are empty and the branch holds 0.5 % of them, and it answers each page with a
/// hash join over everything stored so far, a scan that makes a first sync
/// quadratic. So the writer refreshes the statistics of the tables those probes
/// read (the changed paths' among them) whenever what it added has doubled them
/// since it last did: a handful of times in a first sync, never once the mirror
/// is in its steady state.
///
/// `SKIP_LOCKED`, because a refresh is an optimisation and must never wait: a
/// table another writer (or autovacuum) is analysing is skipped, so two daemons
/// never queue on each other here while holding their batches' locks.
struct PlannerStatistics {
    /// Below this, a scan costs as little as the probes and a refresh is not worth it.
    static let smallestRefresh = 1_000
    static let refresh = """
        ANALYZE (SKIP_LOCKED) commits (sha), repository_commits, commit_parents (parent_sha), authors, paths (path),
            commit_changes_read
        """

    /// Rows the statistics counted when last refreshed (as the memberships stored).
    private var rowsAtLastRefresh: Int
    private var addedSinceRefresh = 0

    /// Starts from what the server's statistics already say about the memberships.
    init(_ connection: PostgreSQLConnection) throws {
        let counted = try connection.execute(
            "SELECT greatest(reltuples, 0)::bigint FROM pg_class WHERE oid = 'repository_commits'::regclass")
        rowsAtLastRefresh = counted.int(0, 0) ?? 0
    }

    /// Notes `added` new memberships and refreshes the statistics when they have doubled the
    /// tables since the last refresh; inside the caller's transaction, so its own rows count.
    mutating func noteAdded(_ added: Int, on connection: PostgreSQLConnection) throws {
        addedSinceRefresh += added
        guard addedSinceRefresh >= max(Self.smallestRefresh, rowsAtLastRefresh) else { return }
        try connection.executeScript(Self.refresh)
        rowsAtLastRefresh += addedSinceRefresh
        addedSinceRefresh = 0
    }
}
