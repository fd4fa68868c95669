import PostgreSQL

/// A first load into an empty store builds its secondary indexes once, at the
/// end, instead of updating them row by row (PostgreSQL's own advice for
/// populating a database, and what pg_restore does).
///
/// Measured on swift-evolution's 7,807 commits (BENCHMARKS.md §8): inserting
/// them with only the keys took 100 ms, with these indexes 577 ms plus 270 ms
/// to merge the trigram index's pending list; building them all afterwards
/// takes about 300 ms, most of it the trigram index.
///
/// Only the indexes no statement of a sync reads are dropped: the keys and the
/// unique `sha` stay, so a page is deduplicated and joined exactly as always.
/// While they are away, readers get the same answers from scans. Whatever ends
/// the load (success, an error, a crash) they come back: at the end of
/// `withBatches`, and when any writer opens the store and finds one missing.
enum BulkLoadIndexes {
    struct Index {
        let name: String
        let definition: String
    }

    /// Exactly as the migrations left them (`BulkLoadIndexesTests` compares the
    /// definitions PostgreSQL reports before a load and after it).
    static let deferred: [Index] = [
        Index(name: "commits_committer_date", definition: "ON commits (committer_date)"),
        Index(name: "commits_author_date", definition: "ON commits (author_date)"),
        Index(name: "commits_author_id", definition: "ON commits (author_id, committer_date)"),
        Index(name: "commits_committer_id", definition: "ON commits (committer_id, committer_date)"),
        Index(
            name: "commits_message_trgm",
            definition: "ON commits USING gin (message gin_trgm_ops) WITH (fastupdate = on, gin_pending_list_limit = 262144)"),
        Index(name: "commit_parents_parent_sha", definition: "ON commit_parents (parent_sha)"),
        Index(name: "commit_coauthors_author_id", definition: "ON commit_coauthors (author_id, commit_id)"),
        Index(name: "repository_commits_commit_id", definition: "ON repository_commits (commit_id)"),
        Index(name: "repository_commits_change_seq", definition: "ON repository_commits (change_seq)"),
    ]

    /// In a transaction of its own: when the store holds no commit, drops the
    /// deferred indexes and says so. When another writer's transaction holds the
    /// tables (its store is not empty for long) or this role may not drop them,
    /// the load goes ahead with the indexes in place: this is only a speed-up.
    static func dropIfStoreIsEmpty(_ connection: PostgreSQLConnection) throws -> Bool {
        do {
            return try connection.transaction {
                try connection.execute("SET LOCAL lock_timeout = '1s'")
                try connection.execute("LOCK TABLE commits, commit_parents, commit_coauthors, repository_commits")
                guard try connection.execute("SELECT NOT EXISTS (SELECT 1 FROM commits)").bool(0, 0) == true else {
                    return false
                }
                try connection.execute("DROP INDEX IF EXISTS " + deferred.map(\.name).joined(separator: ", "))
                return true
            }
        } catch let error as PostgreSQLError where !error.isConnectionLost {
            return false
        }
    }

    /// Builds whichever deferred index is missing, in one transaction (writers
    /// wait for it; readers do not).
    static func restore(_ connection: PostgreSQLConnection) throws {
        try connection.transaction {
            for index in deferred {
                try connection.execute("CREATE INDEX IF NOT EXISTS \(index.name) \(index.definition)")
            }
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
