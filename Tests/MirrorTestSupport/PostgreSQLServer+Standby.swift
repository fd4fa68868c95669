import Foundation
import PostgreSQL

/// A hot standby of a test server: a streaming replica, read-only, as an
/// operator's analysts would query (issue #27: readers on a replica).
extension PostgreSQLServer {
    /// A new server that streams this one's WAL from a base backup
    /// (`pg_basebackup -R`) and answers read-only queries (`hot_standby`, on by
    /// default); the caller's own, stopped when it goes away.
    public func startStandby() async throws -> PostgreSQLServer {
        try await onThread { try self.startStandbyBlocking() }
    }

    private func startStandbyBlocking() throws -> PostgreSQLServer {
        let standbyDirectory = try Self.makeServerDirectory()
        try Self.checked(
            Self.serverCommand([
                "pg_basebackup", "-h", directory, "-p", String(port), "-U", Self.superuser, "-D", standbyDirectory + "/data",
                "-R", "-X", "stream", "-c", "fast", "--no-sync",
            ]), "pg_basebackup")
        return try Self.startOnARandomPort(in: standbyDirectory, failure: "the standby did not start") { standbyPort in
            // Later lines of postgresql.auto.conf win over the backup's copy of the
            // primary's port and socket; its primary_conninfo (-R) stays.
            let settings = """

                port = \(standbyPort)
                unix_socket_directories = '\(standbyDirectory)'
                hot_standby = on

                """
            let autoConf = try FileHandle(forWritingTo: URL(fileURLWithPath: standbyDirectory + "/data/postgresql.auto.conf"))
            try autoConf.seekToEnd()
            try autoConf.write(contentsOf: Data(settings.utf8))
            try autoConf.close()
        }
    }

    /// Waits (a bounded poll) until `standby` has replayed everything this
    /// server has written so far.
    public func waitUntilReplayed(by standby: PostgreSQLServer, database: String, timeout: Duration = .seconds(60)) async throws {
        let target = try execute("SELECT pg_current_wal_lsn()::text", database: database)[0][0] ?? ""
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let caughtUp = try standby.execute(
                "SELECT coalesce(pg_last_wal_replay_lsn() >= $1::pg_lsn, false)::text", database: database, [target])
            if caughtUp.first?.first == "true" { return }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw TestServerError("the standby did not replay up to \(target) within \(timeout)")
    }
}
