import PostgreSQL

/// Merges the message index's pending list (PostgreSQLSchema+BulkPages.swift) in
/// one sorted pass once a writer has added enough commits for the pass to beat
/// inserting each message into the index: when a sync's pages are done, and every
/// 50,000 new commits during a long first sync, so that a search never reads more
/// than some 50 MB of pending entries. Below a thousand, autovacuum merges them.
///
/// Only outside a transaction, after the pages it follows were committed, so it
/// never lengthens a batch. It is an optimisation: when it fails (the writer's
/// role does not own the index, the connection dropped), the entries stay pending,
/// searched like the rest, until the next catch-up or autovacuum merges them.
struct MessageIndexCatchUp {
    static let afterSync = 1_000
    static let duringSync = 50_000
    static let merge = "SELECT gin_clean_pending_list('commits_message_trgm'::regclass)"

    private var addedSinceMerge = 0

    mutating func noteAdded(_ added: Int) {
        addedSinceMerge += added
    }

    mutating func mergeIfAtLeast(_ threshold: Int, on connection: PostgreSQLConnection) {
        guard addedSinceMerge >= threshold, !connection.isInTransaction else { return }
        addedSinceMerge = 0
        _ = try? connection.execute(Self.merge)
    }
}
