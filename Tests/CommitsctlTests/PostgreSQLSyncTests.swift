import Foundation
import GitHubSim
import MirrorTestSupport
import PostgreSQL
import Testing

/// `commitsctl sync` into a real PostgreSQL 15 (issue #26): exact over REST and
/// over git, a second sync one 304, and the server's faults — stopped mid-sync,
/// the sync's connection terminated, a newer schema, passwords — change nothing
/// stored and cost a one-line error.
@Suite struct PostgreSQLSyncTests {
    let directory: TemporaryDirectory
    init() throws { directory = try TemporaryDirectory() }

    /// The shas the store's repository holds, and how many walks and frontier rows are left.
    static func stored(_ uri: String) throws -> (shas: Set<String>, walks: Int, frontier: Int) {
        let connection = try PostgreSQLConnection(uri: uri)
        let shas = try connection.execute(
            "SELECT c.sha FROM commits c JOIN repository_commits rc ON rc.commit_id = c.id WHERE rc.off_branch_since IS NULL")
        return (
            Set((0..<shas.count).compactMap { shas.string($0, 0) }),
            try connection.execute("SELECT count(*) FROM sync_walks").int(0, 0) ?? -1,
            try connection.execute("SELECT count(*) FROM sync_frontier").int(0, 0) ?? -1
        )
    }

    static func storedCount(_ uri: String) -> Int {
        (try? PostgreSQLConnection(uri: uri).execute("SELECT count(*) FROM repository_commits").int(0, 0)) ?? 0
    }

    func sync(_ name: String, _ uri: String, _ simulator: GitHubSimulator, extra: [String] = [], environment: [String: String] = [:])
        async throws -> ProcessResult
    {
        try await run(
            "commitsctl", ["sync", "acme/\(name)", "--db", uri, "--api-url", simulator.baseURL] + extra,
            environment: ["GITHUB_TOKEN": SecretScan.token].merging(environment) { _, new in new })
    }

    /// A sync of `acme/NAME` over REST into `uri`, under way: the simulator holds back the eighth
    /// page until its faults are cleared, so the sync has stored seven pages and waits for the eighth,
    /// however slowly a loaded machine runs.
    func startHeldSync(
        _ name: String, _ uri: String, _ simulator: GitHubSimulator, as label: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> CapturedProcess {
        var faults = FaultPlan()
        faults.holdFrom = 8
        simulator.setFaults(faults)
        let running = try CapturedProcess.sync(
            name, db: uri, simulator: simulator, extra: ["--no-git-bootstrap"], logDirectory: directory.url, as: label)
        let underWay = await waitUntil(timeout: .seconds(120)) { Self.storedCount(uri) >= 500 }
        #expect(underWay, "\(running.stderr)", sourceLocation: sourceLocation)
        return running
    }

    @Test(arguments: [["--no-git-bootstrap"], []])
    func aSyncIsExactAndTheNextIsOneNotModified(extra: [String]) async throws {
        let uri = try await PostgreSQLServer.shared().createDatabase()
        let simulator = try await startKillTarget(name: "pg", id: 4301, commits: 2_500, seed: 7)
        try await withRunning(simulator) { simulator in
            let first = try await sync("pg", uri, simulator, extra: extra)
            #expect(first.status == 0, "\(first.stderr)")
            let stored = try Self.stored(uri)
            #expect(stored.shas == (try simulator.reachableSHAs(owner: "acme", name: "pg")))
            #expect(stored.walks == 0 && stored.frontier == 0)
            let second = try await sync("pg", uri, simulator, extra: extra)
            #expect(second.status == 0, "\(second.stderr)")
            #expect(second.stdout.contains("0 new, 0 updated, 2 requests (2 not modified)"), "\(second.stdout)")
        }
    }

    /// `import` into PostgreSQL takes the same plan and page path as into SQLite; a sync then proves it.
    @Test func anImportIsVerifiedByTheNextSync() async throws {
        try await withRunning(startSimulator([("widgets", 1234)])) { simulator in
            let pages = try await savedPages(simulator, repository: "acme/widgets")
            let saved = directory.path("pages.json")
            try Data(pages.joined()).write(to: URL(fileURLWithPath: saved))
            let uri = try await PostgreSQLServer.shared().createDatabase()
            let imported = try await run("commitsctl", ["import", "acme/widgets", saved, "--db", uri])
            #expect(imported.status == 0, "\(imported.stderr)")
            #expect(
                imported.stdout.hasPrefix(
                    "acme/widgets: imported 1234 commits (1234 new, 0 updated) from 1 input; every parent is present."))
            let verify = try await run(
                "commitsctl", ["sync", "acme/widgets", "--db", uri, "--api-url", simulator.baseURL], environment: ["GITHUB_TOKEN": "t"])
            #expect(verify.status == 0, "\(verify.stderr)")
            #expect(verify.stdout.hasPrefix("acme/widgets@main: 0 new, 0 updated"), "\(verify.stdout)")
            #expect(try Self.stored(uri).shas == (try simulator.reachableSHAs(owner: "acme", name: "widgets")))
        }
    }

    /// Acceptance 3: the server stops as in a crash (`pg_ctl stop -m immediate`)
    /// in the middle of a sync; once it is back, the next sync is exact.
    @Test func theServerStoppedMidSyncLosesNothing() async throws {
        let server = try await PostgreSQLServer.start()
        let uri = try server.createDatabase()
        let simulator = try await startKillTarget(name: "crash", id: 4302, commits: 3_000, seed: 11)
        try await withRunning(simulator) { simulator in
            let running = try await startHeldSync("crash", uri, simulator, as: "stopped")
            try await onThread { try server.stopImmediately() }
            simulator.setFaults(FaultPlan())
            let status = await onThread { running.wait() }
            #expect(status != nil && status != 0, "a sync that lost its store fails: \(running.stdout) \(running.stderr)")
            #expect(!running.stderr.isEmpty)
            try await onThread { try server.restart() }
            let resumed = try await sync("crash", uri, simulator, extra: ["--no-git-bootstrap"])
            #expect(resumed.status == 0, "\(resumed.stderr)")
            let stored = try Self.stored(uri)
            #expect(stored.shas == (try simulator.reachableSHAs(owner: "acme", name: "crash")))
            #expect(stored.walks == 0 && stored.frontier == 0)
        }
    }

    /// `pg_terminate_backend` of the sync's connection while it waits for a page:
    /// the sync fails in one line, and the next resumes exactly.
    @Test func aTerminatedConnectionMidSyncResumesExactly() async throws {
        let server = try await PostgreSQLServer.shared()
        let uri = try server.createDatabase()
        let database = String(uri.split(separator: "/").last!)
        let simulator = try await startKillTarget(name: "term", id: 4303, commits: 3_000, seed: 13)
        try await withRunning(simulator) { simulator in
            let running = try await startHeldSync("term", uri, simulator, as: "terminated")
            // The sync's writer, named after its claim's holder (`… (pid N)`).
            let terminated = try server.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND application_name LIKE 'commits-mirror % (pid %)'",
                [database])
            #expect(!terminated.isEmpty)
            simulator.setFaults(FaultPlan())
            let status = await onThread { running.wait() }
            #expect(status != nil && status != 0, "\(running.stdout) \(running.stderr)")
            let resumed = try await sync("term", uri, simulator, extra: ["--no-git-bootstrap"])
            #expect(resumed.status == 0, "\(resumed.stderr)")
            #expect(try Self.stored(uri).shas == (try simulator.reachableSHAs(owner: "acme", name: "term")))
        }
    }

    @Test func aSchemaFromANewerVersionIsRefusedAndLeftAlone() async throws {
        let server = try await PostgreSQLServer.shared()
        let uri = try server.createDatabase()
        let simulator = try await startKillTarget(name: "newer", id: 4304, commits: 120, seed: 17)
        try await withRunning(simulator) { simulator in
            #expect(try await sync("newer", uri, simulator).status == 0)
            // The version this program migrated to is the newest it knows.
            let known = try PostgreSQLConnection(uri: uri).execute("SELECT max(version) FROM commits_mirror_schema").int(0, 0)
            try PostgreSQLConnection(uri: uri).execute(
                "INSERT INTO commits_mirror_schema (version, name) VALUES (99, 'from the future')")
            try simulator.moveHead(owner: "acme", name: "newer", back: 20)
            let refused = try await sync("newer", uri, simulator)
            #expect(refused.status == 1)
            #expect(
                refused.stderr
                    == "commitsctl: error: the store \(uri) has schema version 99, newer than this program knows (\(known ?? 0)); upgrade commits-mirror. The store was left untouched\n"
            )
            #expect(Self.storedCount(uri) == 120)
        }
    }

    /// The `secured` role needs its password over TCP (PostgreSQLServer's pg_hba.conf).
    static let securedPassword = PostgreSQLServer.passwordRolePassword

    static func ensureSecuredRole(_ server: PostgreSQLServer) throws {
        try server.ensurePasswordRole()
    }

    /// libpq's password file, and the credential commitsd's unit can load, both
    /// authenticate; without either the server refuses.
    @Test func passwordsComeFromThePasswordFileOrTheCredentialNeverTheURI() async throws {
        let server = try await PostgreSQLServer.shared()
        try Self.ensureSecuredRole(server)
        let uri = try server.createDatabase(user: PostgreSQLServer.passwordRole)
        let simulator = try await startKillTarget(name: "auth", id: 4305, commits: 50, seed: 19)
        try await withRunning(simulator) { simulator in
            let without = try await sync("auth", uri, simulator)
            #expect(without.status == 1 && without.stderr.contains("no password supplied"), "\(without.stderr)")
            #expect(without.stderr.contains("; put the password in ~/.pgpass"), "\(without.stderr)")
            #expect(without.stderr.split(separator: "\n").count == 1, "\(without.stderr)")
            let passfile = try directory.write(
                "pgpass", "127.0.0.1:\(server.port):*:\(PostgreSQLServer.passwordRole):\(Self.securedPassword)\n")
            chmod(passfile, 0o600)
            let withFile = try await sync("auth", uri, simulator, environment: ["PGPASSFILE": passfile])
            #expect(withFile.status == 0, "\(withFile.stderr)")
            let credentials = try TemporaryDirectory()
            try credentials.write("postgresql-password", Self.securedPassword + "\n")
            let withCredential = try await sync("auth", uri, simulator, environment: ["CREDENTIALS_DIRECTORY": credentials.url.path])
            #expect(withCredential.status == 0, "\(withCredential.stderr)")
            #expect(withCredential.stdout.contains("2 requests (2 not modified)"), "\(withCredential.stdout)")
        }
    }

    @Test func aMissingDatabaseRoleOrPasswordIsOneLineWithWhatToDo() async throws {
        let server = try await PostgreSQLServer.shared()
        let missing = server.uri(database: "no_such_mirror")
        let result = try await run("commitsctl", ["sync", "acme/x", "--db", missing, "--api-url", "http://127.0.0.1:1"])
        #expect(result.status == 1)
        #expect(
            result.stderr.hasPrefix("commitsctl: error: cannot connect to the PostgreSQL store \(missing): ")
                && result.stderr.contains("\"no_such_mirror\" does not exist; create it (createdb"), "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1)
        let stranger = server.uri(database: "postgres", user: "no_such_role")
        let unknown = try await run("commitsctl", ["sync", "acme/x", "--db", stranger, "--api-url", "http://127.0.0.1:1"])
        #expect(unknown.status == 1)
        #expect(
            unknown.stderr.contains("role \"no_such_role\" does not exist; create that role (createuser"),
            "\(unknown.stderr)")
        #expect(unknown.stderr.split(separator: "\n").count == 1)
        try Self.ensureSecuredRole(server)
        let credentials = try TemporaryDirectory()
        try credentials.write("postgresql-password", "wrong-secret-value")
        let secured = server.uri(database: "postgres", user: PostgreSQLServer.passwordRole)
        let refused = try await run(
            "commitsctl", ["sync", "acme/x", "--db", secured, "--api-url", "http://127.0.0.1:1"],
            environment: ["CREDENTIALS_DIRECTORY": credentials.url.path])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("password authentication failed"), "\(refused.stderr)")
        #expect(refused.stderr.contains("; correct the password where it comes from"), "\(refused.stderr)")
        #expect(!refused.stderr.contains("wrong-secret-value"))
        #expect(refused.stderr.split(separator: "\n").count == 1)
    }
}
