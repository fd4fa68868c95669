import PostgreSQL

/// After a bulk load (BulkLoadIndexes), the trigram message index is built on a
/// connection of its own while the writer's connection builds the other indexes
/// and finishes the sync (the branch's walk, its state): the server works on
/// both at once. It is the longest build by far (214 of 280 ms after a first
/// sync of 7,807 commits), and nothing a sync does next reads it.
///
/// The whole build is one script, `BEGIN` to `COMMIT`, that the server runs to
/// its end without waiting for this process: so no lock it holds can wait on
/// the writer, whatever the writer does meanwhile. The writer waits for it only
/// outside any transaction of its own (`finish`), when its next load begins and
/// when the store is closed. Until then a search reads the messages without the
/// index and answers the same, only slower.
final class MessageIndexBuild {
    private let connection: PostgreSQLConnection

    private init(_ connection: PostgreSQLConnection) {
        self.connection = connection
    }

    /// Opens the second connection and sends the build; nil when either fails
    /// (the caller then builds the index itself).
    static func start(uri: String, password: String?) -> MessageIndexBuild? {
        do {
            let connection = try PostgreSQLConnection(
                uri: uri, password: password, applicationName: "commits-mirror (message index)")
            try connection.sendScript(
                """
                BEGIN;
                SELECT pg_advisory_xact_lock(\(BulkLoadIndexes.messageIndexLockKey));
                \(BulkLoadIndexes.raiseBuildMemory);
                CREATE INDEX IF NOT EXISTS \(BulkLoadIndexes.messageIndex.name) \(BulkLoadIndexes.messageIndex.definition);
                COMMIT;
                """)
            return MessageIndexBuild(connection)
        } catch {
            return nil
        }
    }

    /// Waits for the build to end and closes its connection; false when it
    /// failed (its transaction rolled back: the index is still missing).
    func finish() -> Bool {
        defer { connection.close() }
        do {
            try connection.awaitScript()
            return !connection.isInTransaction
        } catch {
            return false
        }
    }
}
