import PostgreSQL

/// After a bulk load (BulkLoadIndexes), the indexes it left out are built on
/// connections of their own while the writer's connection finishes the sync
/// (the branch's walk, its state), which reads none of them: the server works
/// on all at once, so the trigram index, the longest build by far, runs beside
/// the walk and the other indexes instead of after them (docs/MEASURED-REASONS.md,
/// "Measured reasons: index builds after a bulk load").
///
/// Each build is one script that the server runs to its end without waiting
/// for this process: its transactions hold one table each, so no lock it holds
/// can wait on the writer, whatever the writer does meanwhile. The writer waits
/// for it only outside any transaction of its own (`PostgreSQLStore.finishIndexBuilds`),
/// when its next load begins and when the store is closed. Until then a query
/// reads the tables without those indexes and answers the same, only slower.
final class IndexBuild {
    private let connection: PostgreSQLConnection

    private init(_ connection: PostgreSQLConnection) {
        self.connection = connection
    }

    /// Opens a connection named `purpose` and sends `script`; nil when either
    /// fails (the caller then builds those indexes itself).
    static func start(_ script: String, purpose: String, uri: String, password: String?) -> IndexBuild? {
        do {
            let connection = try StoreSession.connect(uri: uri, password: password, applicationName: "commits-mirror (\(purpose))")
            try connection.sendScript(script)
            return IndexBuild(connection)
        } catch {
            return nil
        }
    }

    /// Waits for the build to end and closes its connection; false when it
    /// failed (the transaction it was in rolled back and the server skipped the
    /// rest of the script: some of its indexes may still be missing).
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
