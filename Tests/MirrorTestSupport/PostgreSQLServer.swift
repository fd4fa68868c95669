import Foundation
import PostgreSQL
import Synchronization

/// A real PostgreSQL 15 server for the tests: `initdb` and `pg_ctl` into a fresh
/// directory, listening on 127.0.0.1 at a random port and on a socket in that
/// directory. PostgreSQL refuses to run as root, so under root (CI) every server
/// command runs as `nobody` through `setpriv`.
///
/// `shared()` is one server for the whole test process, each test in a database
/// of its own (`createDatabase()`); tests that stop or break the server start
/// their own (`start()`). A watcher process stops the server and removes its
/// directory when the test process ends, however it ends.
public final class PostgreSQLServer: @unchecked Sendable {
    public static let binaries = "/usr/lib/postgresql/15/bin"
    /// A role whose connections need a password (scram-sha-256); every other role is trusted.
    public static let passwordRole = "secured"
    /// `passwordRole`'s password: one for every test of the process, which shares one server.
    public static let passwordRolePassword = "s3cret-Pa55word-for-tests"
    public static let superuser = "postgres"

    public let directory: String
    public let port: Int
    var dataDirectory: String { directory + "/data" }
    static let runAs: [String] =
        getuid() == 0 ? ["/usr/bin/setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups", "--"] : []

    private static let sharedServer = Mutex<PostgreSQLServer?>(nil)

    /// The test process's server, started on first use.
    public static func shared() async throws -> PostgreSQLServer {
        try await onThread {
            try sharedServer.withLock { server in
                if let server { return server }
                let started = try PostgreSQLServer.startBlocking()
                server = started
                return started
            }
        }
    }

    /// A server of the caller's own, for tests that stop, restart or break it.
    public static func start() async throws -> PostgreSQLServer {
        try await onThread { try startBlocking() }
    }

    init(directory: String, port: Int) {
        self.directory = directory
        self.port = port
    }

    deinit {
        _ = try? Self.serverCommand(["pg_ctl", "-D", dataDirectory, "stop", "-m", "immediate", "-w"])
        _ = try? runProgramBlocking("/bin/rm", ["-rf", directory])
    }

    static func startBlocking() throws -> PostgreSQLServer {
        let directory = try makeServerDirectory()
        try checked(
            serverCommand([
                "initdb", "-D", directory + "/data", "-U", superuser, "--auth=trust", "--encoding=UTF8",
                "--locale=C", "--no-sync",
            ]), "initdb")
        let hba = """
            local all all trust
            local replication all trust
            host all \(passwordRole) 127.0.0.1/32 scram-sha-256
            host all all 127.0.0.1/32 trust

            """
        try hba.write(toFile: directory + "/data/pg_hba.conf", atomically: false, encoding: .utf8)
        return try startOnARandomPort(in: directory, failure: "pg_ctl start failed") { port in
            let settings = """
                listen_addresses = '127.0.0.1'
                port = \(port)
                unix_socket_directories = '\(directory)'
                fsync = off
                synchronous_commit = off
                full_page_writes = off
                shared_buffers = 32MB
                max_connections = 200
                wal_level = replica
                max_wal_senders = 4

                """
            try settings.write(toFile: directory + "/data/postgresql.auto.conf", atomically: false, encoding: .utf8)
        }
    }

    /// A fresh directory for a server's cluster, owned by the user the server runs as.
    static func makeServerDirectory() throws -> String {
        let directory = "/tmp/cm-pg-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
        if !runAs.isEmpty { try checked(runProgramBlocking("/bin/chown", ["nobody:nogroup", directory]), "chown") }
        return directory
    }

    /// Starts the cluster in `directory`, trying up to five random ports (another process may
    /// hold one): `configure` writes the port into its settings before each try.
    static func startOnARandomPort(
        in directory: String, failure: String, configure: (_ port: Int) throws -> Void
    ) throws -> PostgreSQLServer {
        var lastFailure = ""
        for _ in 0..<5 {
            let port = Int.random(in: 20_000..<60_000)
            try configure(port)
            let started = try serverCommand([
                "pg_ctl", "-D", directory + "/data", "-l", directory + "/server.log", "-w", "-t", "60", "start",
            ])
            if started.status == 0 {
                let server = PostgreSQLServer(directory: directory, port: port)
                try server.watchTestProcess()
                return server
            }
            lastFailure = (try? String(contentsOfFile: directory + "/server.log", encoding: .utf8)) ?? started.stderr
        }
        throw TestServerError("\(failure) five times: \(lastFailure.suffix(600))")
    }

    /// Stops the server and removes its directory once this test process is gone,
    /// even if it was killed (a server outliving its tests would hold a port and memory).
    func watchTestProcess() throws {
        let script = """
            while [ -d /proc/\(getpid()) ]; do sleep 1; done
            \(Self.binaries)/pg_ctl -D \(dataDirectory) stop -m immediate -w >/dev/null 2>&1
            rm -rf \(directory)
            """
        let runAs = Self.runAs.map { "'\($0)'" }.joined(separator: " ")
        try Self.checked(
            runProgramBlocking("/bin/sh", ["-c", "nohup \(runAs) /bin/sh -c '\(script)' </dev/null >/dev/null 2>&1 &"]),
            "watcher")
    }

    // MARK: - Using it

    /// A URI naming `database` on this server over TCP (what users type).
    public func uri(database: String, user: String = PostgreSQLServer.superuser) -> String {
        "postgresql://\(user)@127.0.0.1:\(port)/\(database)"
    }

    /// A new, empty database of the caller's own; returns its URI.
    public func createDatabase(user: String = PostgreSQLServer.superuser) throws -> String {
        let name = "t_" + UUID().uuidString.prefix(12).lowercased().replacingOccurrences(of: "-", with: "")
        let admin = try PostgreSQLConnection(uri: uri(database: "postgres"))
        // An identifier cannot be a bound parameter; `name` is ours (hex), `user` a test constant.
        try admin.execute("CREATE DATABASE \(name) OWNER \(user)")
        return uri(database: name, user: user)
    }

    /// Creates `passwordRole` (with `passwordRolePassword`) unless it exists; tests run in parallel.
    public func ensurePasswordRole() throws {
        try execute(
            """
            DO $$ BEGIN
              CREATE ROLE \(Self.passwordRole) LOGIN PASSWORD '\(Self.passwordRolePassword)';
            EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL;
            END $$
            """)
    }

    /// Runs `sql` as the superuser in `database` and returns its rows.
    @discardableResult
    public func execute(_ sql: String, database: String = "postgres", _ parameters: [any PostgreSQLBindable] = [])
        throws -> [[String?]]
    {
        try PostgreSQLConnection(uri: uri(database: database)).execute(sql, parameters).rows
    }

    /// `pg_ctl stop -m immediate`: the server dies as in a crash (no checkpoint).
    public func stopImmediately() throws {
        try Self.checked(Self.serverCommand(["pg_ctl", "-D", dataDirectory, "stop", "-m", "immediate", "-w"]), "pg_ctl stop")
    }

    /// Starts the server again after `stopImmediately` (crash recovery runs first).
    public func restart() throws {
        try Self.checked(
            Self.serverCommand(["pg_ctl", "-D", dataDirectory, "-l", directory + "/server.log", "-w", "-t", "60", "start"]),
            "pg_ctl start")
    }

    /// Runs one of the server's programs (`initdb`, `pg_ctl`, `psql` …) as the server's user.
    public static func serverCommand(_ arguments: [String]) throws -> ProcessResult {
        let program = binaries + "/" + arguments[0]
        let command = runAs + [program] + arguments.dropFirst()
        return try runProgramBlocking(command[0], Array(command.dropFirst()))
    }

    @discardableResult
    static func checked(_ result: ProcessResult, _ what: String) throws -> ProcessResult {
        guard result.status == 0 else { throw TestServerError("\(what) failed (\(result.status)): \(result.stderr.suffix(600))") }
        return result
    }
}

public struct TestServerError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
