import MirrorCore
import PostgreSQL

/// A load into an empty store (or one it will at least double) builds the
/// secondary indexes once, at the end, instead of updating them row by row
/// (PostgreSQL's own advice for populating a database, and what pg_restore does).
///
/// Inserting the rows with only the keys and building these indexes afterwards
/// takes less than half the time of updating them row by row and merging the
/// trigram index's pending list (docs/MEASURED-REASONS.md, "Measured reasons: index builds
/// after a bulk load").
///
/// Only the indexes no statement of a sync reads are dropped: the keys and the
/// unique `sha` stay, so a page is deduplicated and joined exactly as always.
/// While they are away, readers get the same answers from scans. Whatever ends
/// the load (success, an error, a crash) they come back: at the end of
/// `withBatches`, and when any writer opens the store and finds one missing.
enum BulkLoadIndexes {
    struct Index {
        let name: String
        let table: String
        /// What follows `ON table` in the index's definition.
        let method: String

        var definition: String { "ON \(table) \(method)" }
        /// The statement that builds it unless it exists.
        var create: String { "CREATE INDEX IF NOT EXISTS \(name) \(definition)" }
    }

    /// Exactly as the migrations left them (`BulkLoadIndexesTests` compares the
    /// definitions PostgreSQL reports before a load and after it).
    static let deferred: [Index] = [
        Index(name: "commits_committer_date", table: "commits", method: "(committer_date)"),
        Index(name: "commits_author_date", table: "commits", method: "(author_date)"),
        Index(name: "commits_author_id", table: "commits", method: "(author_id, committer_date)"),
        Index(name: "commits_committer_id", table: "commits", method: "(committer_id, committer_date)"),
        messageIndex,
        Index(name: "commit_parents_parent_sha", table: "commit_parents", method: "(parent_sha)"),
        Index(name: "commit_coauthors_author_id", table: "commit_coauthors", method: "(author_id, commit_id)"),
        Index(name: "repository_commits_commit_id", table: "repository_commits", method: "(commit_id)"),
        Index(name: "repository_commits_change_seq", table: "repository_commits", method: "(change_seq)"),
    ]

    /// The deferred indexes but the message index (a connection of their own builds them beside the writer).
    static var secondary: [Index] { deferred.filter { $0.name != messageIndex.name } }

    /// In a transaction of its own: when the load is worth it (`BatchLimits.makeBulkLoad`),
    /// drops the deferred indexes and says so. When another writer's transaction
    /// holds the tables for more than a second, or this role may not drop them,
    /// the load goes ahead with the indexes in place: this only ever changes speed.
    /// A daemon's claimed sync's writer (`fence`: daemons sharing the store) never drops
    /// them: the other daemons' writes would run without them meanwhile, and the
    /// rebuild, one transaction over all four tables, deadlocks with their batches,
    /// which take the same tables in another order.
    static func dropIfWorthRebuilding(
        _ limits: BatchLimits, fence: WriteFence?, _ connection: PostgreSQLConnection
    ) throws -> Bool {
        guard fence?.allowsBulkLoad ?? true else { return false }
        do {
            return try connection.transaction {
                try connection.execute("SET LOCAL lock_timeout = '1s'")
                try connection.execute("LOCK TABLE commits, commit_parents, commit_coauthors, repository_commits")
                let stored = try storedCommits(upTo: (limits.expectedCommits ?? 0) + 1, connection)
                guard limits.makeBulkLoad(intoStoreHolding: stored) else { return false }
                try connection.execute("DROP INDEX IF EXISTS " + deferred.map(\.name).joined(separator: ", "))
                return true
            }
        } catch let error as PostgreSQLError where !error.isConnectionLost {
            return false
        }
    }

    /// Whether the store holds at least `count` commits: after a bulk load, the
    /// commits the dropped message index does not cover.
    static func storeHolds(atLeast count: Int, _ connection: PostgreSQLConnection) throws -> Bool {
        try storedCommits(upTo: count, connection) >= count
    }

    /// The stored commits, counted only as far as `limit` (a decision needs no more).
    private static func storedCommits(upTo limit: Int, _ connection: PostgreSQLConnection) throws -> Int {
        try connection.execute(
            "SELECT count(*) FROM (SELECT 1 FROM commits LIMIT $1::bigint) AS counted", [Int64(limit)]
        ).int(0, 0) ?? 0
    }

    /// Memory for the builds (kB), when the server's setting is lower: a trigram
    /// index builds markedly faster with 256 MB than with PostgreSQL's default
    /// 64 MB (docs/MEASURED-REASONS.md, "Measured reasons: index builds after a bulk load").
    /// For the building transaction only.
    static let raiseBuildMemory = """
        SELECT set_config('maintenance_work_mem', '262144kB', true)
        FROM pg_settings WHERE name = 'maintenance_work_mem' AND setting::bigint < 262144
        """

    /// pg_advisory_xact_lock's key for rebuilding the deferred indexes: any constant no other lock uses.
    static let restoreLockKey: Int64 = 0x636F_6D6D_6974_7302
    /// The same for the message index alone, which an `IndexBuild` of its own builds.
    static let messageIndexLockKey: Int64 = 0x636F_6D6D_6974_7305

    /// The trigram index on messages: the longest build of all.
    static let messageIndex = Index(
        name: "commits_message_trgm", table: "commits",
        method: "USING gin (message gin_trgm_ops) WITH (fastupdate = on, gin_pending_list_limit = 262144)")

    /// The secondary indexes for an `IndexBuild`: one transaction per table, each
    /// under `restore`'s lock, so the build never holds one table while it waits
    /// for another (the writer's statements wait at most for the table being
    /// indexed, never the other way round), and a writer restoring at once finds
    /// each index built, not half made.
    static var secondaryIndexesScript: String {
        var tables: [String] = []
        for index in secondary where !tables.contains(index.table) { tables.append(index.table) }
        return tables.map { table in
            let creates = secondary.filter { $0.table == table }.map { $0.create + ";" }
            return (["BEGIN;", "SELECT pg_advisory_xact_lock(\(restoreLockKey));", "\(raiseBuildMemory);"] + creates + ["COMMIT;"])
                .joined(separator: "\n")
        }.joined(separator: "\n")
    }

    /// The message index for an `IndexBuild`, under its own lock.
    static var messageIndexScript: String {
        """
        BEGIN;
        SELECT pg_advisory_xact_lock(\(messageIndexLockKey));
        \(raiseBuildMemory);
        \(messageIndex.create);
        COMMIT;
        """
    }

    /// Builds whichever deferred index is missing, in one transaction (writers
    /// wait for it; readers do not). One connection at a time: two
    /// `CREATE INDEX IF NOT EXISTS` of one name at once (two daemons' first
    /// loads ending together) make the second fail on the catalog's unique key
    /// instead of finding the index; under the lock, the second finds it built.
    ///
    /// The message index only when `exceptMessageIndex` is false and no other
    /// connection is building it: that build ends on its own (IndexBuild), and
    /// waiting for it here could wait for this very process.
    static func restore(_ connection: PostgreSQLConnection, exceptMessageIndex: Bool = false) throws {
        try connection.transaction {
            try connection.execute("SELECT pg_advisory_xact_lock($1)", [restoreLockKey])
            try connection.execute(raiseBuildMemory)
            for index in secondary {
                try connection.execute(index.create)
            }
            guard !exceptMessageIndex,
                try connection.execute("SELECT pg_try_advisory_xact_lock($1)", [messageIndexLockKey]).bool(0, 0) == true
            else { return }
            try connection.execute(messageIndex.create)
        }
    }

    /// Whether a load was interrupted before it rebuilt them (one catalog query).
    static func anyMissing(_ connection: PostgreSQLConnection) throws -> Bool {
        let present = try connection.execute(
            "SELECT count(*) FROM pg_indexes WHERE schemaname = current_schema() AND indexname = ANY($1::text[])",
            [TextArray(deferred.map(\.name))]
        ).int(0, 0)
        return present != deferred.count
    }
}
