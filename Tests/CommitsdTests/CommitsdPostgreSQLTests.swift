import Curl
import Foundation
import GitHubSim
import MirrorTestSupport
import Testing

/// Issue #26: commitsd on a PostgreSQL store (a real server) as on a SQLite
/// file, and its faults: the server down at start, stopped and restarted
/// mid-run, a wrong password, a missing database. commitsd never exits for
/// them; `/readyz` says 503 while the store does not open, and every wait is a
/// bounded poll of what the process shows (its log, its endpoints, the store).
@Suite(.serialized) struct CommitsdPostgreSQLTests {
    let directory: TemporaryDirectory
    init() throws { directory = try TemporaryDirectory() }

    /// commitsd mirroring `repositories` from `simulator` into `store` every second, serving metrics on a free port.
    func startDaemon(
        store: String, simulator: GitHubSimulator, repositories: [String], settings: String = "",
        environment: [String: String] = [:], logLevel: String = "info"
    ) throws -> DaemonProcess {
        try DaemonProcess.mirroring(
            repositories, from: simulator, in: directory, store: store, settings: "metrics_listen: 127.0.0.1:0\n" + settings,
            environment: environment, logLevel: logLevel)
    }

    /// `http://127.0.0.1:PORT`, from the line commitsd logs once its metrics server listens.
    static func metricsBase(_ daemon: DaemonProcess) async throws -> String {
        let listening = await waitUntil(timeout: .seconds(60)) { daemon.log.contains("metrics.listen=127.0.0.1:") }
        #expect(listening, "\(daemon.log)")
        let port = try #require(
            daemon.log.split(separator: "\n").first { $0.contains("serving metrics") }?
                .split(separator: ":").last.flatMap { Int($0.prefix { $0.isNumber }) })
        return "http://127.0.0.1:\(port)"
    }

    /// The status `url` answers with; nil when nothing answers.
    static func status(_ url: String) async -> Int? {
        try? await HTTPClient().send(HTTPRequest(url: url)).status
    }

    /// Polls `url` until it answers `expected` or `timeout` passes; whether it did.
    static func answers(_ url: String, _ expected: Int, within timeout: Duration) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if await status(url) == expected { return true }
            try? await Task.sleep(for: .milliseconds(200))
        }
        return await status(url) == expected
    }

    /// A simulator serving `acme/NAME` (3,000 realistic commits) that holds back the eighth page over
    /// REST until its faults are cleared: a walk is certainly under way when the test strikes, however
    /// slowly a loaded machine ran the first seven.
    static func holdingTheEighthPage(name: String, id: Int, seed: UInt64) async throws -> GitHubSimulator {
        var configuration = SimConfiguration()
        configuration.validTokens = [SecretScan.token]
        let source = RepositorySource.synthetic(SyntheticSpec(commits: 3_000, shape: .realistic, seed: seed))
        let simulator = try GitHubSimulator(
            configuration: configuration, repositories: [SimRepository(owner: "acme", name: name, id: id, source: source)])
        try await simulator.start()
        var faults = FaultPlan()
        faults.holdFrom = 8
        simulator.setFaults(faults)
        return simulator
    }

    /// Waits until commitsd has stored 500 commits into `uri`: the walk is under way.
    static func expectWalkUnderWay(
        _ daemon: DaemonProcess, _ server: PostgreSQLServer, _ uri: String, sourceLocation: SourceLocation = #_sourceLocation
    ) async {
        let underWay = await waitUntil(timeout: .seconds(120)) { (count("repository_commits", server, uri) ?? 0) >= 500 }
        #expect(underWay, "\(daemon.log)", sourceLocation: sourceLocation)
    }

    /// SIGTERM: commitsd exits 0, leaving a store that `commitsctl check` passes.
    static func expectCleanExit(
        _ daemon: DaemonProcess, store uri: String, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        daemon.signal(SIGTERM)
        #expect(await daemon.waitForExit(timeout: .seconds(15)) == 0, "\(daemon.log)", sourceLocation: sourceLocation)
        let check = try await run("commitsctl", ["check", "--db", uri])
        #expect(check.status == 0, "\(check.stdout)\(check.stderr)", sourceLocation: sourceLocation)
    }

    static func database(of uri: String) -> String { String(uri.split(separator: "/").last!) }

    /// The shas `uri`'s store holds on a branch; empty while it cannot be read.
    static func memberSHAs(_ server: PostgreSQLServer, _ uri: String) -> Set<String> {
        let rows = try? server.execute(
            "SELECT c.sha FROM commits c JOIN repository_commits rc ON rc.commit_id = c.id WHERE rc.off_branch_since IS NULL",
            database: database(of: uri))
        return Set((rows ?? []).compactMap { $0.first ?? nil })
    }

    static func count(_ table: String, _ server: PostgreSQLServer, _ uri: String) -> Int? {
        // `table` is one of this file's constants, never input.
        (try? server.execute("SELECT count(*) FROM \(table)", database: database(of: uri)))?.first?.first?.flatMap { Int($0) }
    }

    /// Terminates commitsd's writers' connections to `uri`'s database (a claimed sync's is
    /// named after its holder; never this one, which has the wrapper's default name); how many there were.
    static func terminateConnections(_ server: PostgreSQLServer, _ uri: String) -> Int {
        let rows = try? server.execute(
            """
            SELECT pg_terminate_backend(pid) FROM pg_stat_activity
            WHERE datname = $1 AND application_name LIKE 'commits-mirror%' AND pid <> pg_backend_pid()
                AND application_name NOT IN ('commits-mirror leases', 'commits-mirror reader')
            """, [database(of: uri)])
        return rows?.count ?? 0
    }

    /// The log lines saying commitsd waits for its store.
    static func waitingLines(_ log: String) -> [Substring] {
        log.split(separator: "\n").filter { $0.contains("cannot open the store; commitsd keeps trying") }
    }

    @Test func mirrorsIntoPostgreSQLAsIntoSQLite() async throws {
        let server = try await PostgreSQLServer.shared()
        let uri = try server.createDatabase()
        try await withRunning(startSimulator([("widgets", 1_234)])) { simulator in
            let expected = try simulator.reachableSHAs(owner: "acme", name: "widgets")
            let daemon = try startDaemon(store: uri, simulator: simulator, repositories: ["acme/widgets"])
            defer { daemon.stop() }
            #expect(await waitUntil(timeout: .seconds(180)) { Self.memberSHAs(server, uri) == expected }, "\(daemon.log)")
            let base = try await Self.metricsBase(daemon)
            #expect(await Self.answers(base + "/readyz", 200, within: .seconds(30)), "\(daemon.log)")
            try await Self.expectCleanExit(daemon, store: uri)
            #expect(!daemon.log.contains("not on PostgreSQL"), "\(daemon.log)")
            #expect(Self.waitingLines(daemon.log).isEmpty, "\(daemon.log)")
            let sqlite = directory.path("commits.sqlite")
            let sync = try await run(
                "commitsctl", ["sync", "acme/widgets", "--db", sqlite, "--api-url", simulator.baseURL],
                environment: ["GITHUB_TOKEN": SecretScan.token])
            #expect(sync.status == 0, "\(sync.stderr)")
            for query in [["--format", "ndjson"], ["--repo", "acme/widgets", "-n", "50"], ["--reverse", "--format", "csv"]] {
                let fromSQLite = try await run("commitsctl", ["query"] + query + ["--db", sqlite], environment: ["TZ": "UTC"])
                let fromPostgreSQL = try await run("commitsctl", ["query"] + query + ["--db", uri], environment: ["TZ": "UTC"])
                #expect(fromSQLite.status == 0 && fromPostgreSQL.status == 0, "\(fromSQLite.stderr)\(fromPostgreSQL.stderr)")
                #expect(!fromSQLite.stdout.isEmpty)
                #expect(fromPostgreSQL.stdout == fromSQLite.stdout, "\(query)")
            }
        }
    }

    @Test func waitsForAServerThatIsDownAtStart() async throws {
        let server = try await PostgreSQLServer.start()
        let uri = try server.createDatabase()
        try await onThread { try server.stopImmediately() }
        try await withRunning(startSimulator([("widgets", 321)])) { simulator in
            let expected = try simulator.reachableSHAs(owner: "acme", name: "widgets")
            let daemon = try startDaemon(store: uri, simulator: simulator, repositories: ["acme/widgets"], logLevel: "debug")
            defer { daemon.stop() }
            let base = try await Self.metricsBase(daemon)
            #expect(await Self.status(base + "/healthz") == 200)
            #expect(await Self.status(base + "/readyz") == 503)
            // It tries again (logged at debug), still running, having said why once.
            let retried = await waitUntil(timeout: .seconds(60)) {
                daemon.log.components(separatedBy: "the store still does not open").count > 2
            }
            #expect(retried, "\(daemon.log)")
            #expect(daemon.process.isRunning)
            let waiting = Self.waitingLines(daemon.log)
            #expect(waiting.count == 1, "\(daemon.log)")
            #expect(waiting.first?.contains("cannot connect to the PostgreSQL store \(uri)") == true, "\(waiting)")
            #expect(await Self.status(base + "/readyz") == 503)
            #expect(!daemon.log.contains("sync failed"), "no sync is tried before the store opens")

            try await onThread { try server.restart() }
            #expect(await Self.answers(base + "/readyz", 200, within: .seconds(120)), "\(daemon.log)")
            #expect(daemon.log.contains("the store opens now; starting to sync"), "\(daemon.log)")
            #expect(await waitUntil(timeout: .seconds(120)) { Self.memberSHAs(server, uri) == expected }, "\(daemon.log)")
            try await Self.expectCleanExit(daemon, store: uri)
        }
    }

    @Test func recoversFromAServerRestartedMidRun() async throws {
        let server = try await PostgreSQLServer.start()
        let uri = try server.createDatabase()
        try await withRunning(Self.holdingTheEighthPage(name: "crash", id: 4401, seed: 11)) { simulator in
            let expected = try simulator.reachableSHAs(owner: "acme", name: "crash")
            let daemon = try startDaemon(
                store: uri, simulator: simulator, repositories: ["acme/crash"], settings: "git_bootstrap: false")
            defer { daemon.stop() }
            let base = try await Self.metricsBase(daemon)
            await Self.expectWalkUnderWay(daemon, server, uri)

            try await onThread { try server.stopImmediately() }
            simulator.setFaults(FaultPlan())
            #expect(await Self.answers(base + "/readyz", 503, within: .seconds(60)), "\(daemon.log)")
            #expect(await waitUntil(timeout: .seconds(60)) { daemon.log.contains("sync failed") }, "\(daemon.log)")
            #expect(daemon.process.isRunning, "\(daemon.log)")

            try await onThread { try server.restart() }
            #expect(await waitUntil(timeout: .seconds(180)) { Self.memberSHAs(server, uri) == expected }, "\(daemon.log)")
            #expect(await Self.answers(base + "/readyz", 200, within: .seconds(60)), "\(daemon.log)")
            #expect(await waitUntil(timeout: .seconds(60)) { Self.count("sync_walks", server, uri) == 0 }, "\(daemon.log)")
            try await Self.expectCleanExit(daemon, store: uri)
            #expect(Self.memberSHAs(server, uri) == expected)
            #expect(Self.count("sync_frontier", server, uri) == 0)
        }
    }

    /// `pg_terminate_backend` of the daemon's connections mid-walk: that sync fails,
    /// the next round opens a fresh connection and resumes from the checkpoint.
    @Test func aDroppedConnectionMidRunIsReopenedNextRound() async throws {
        let server = try await PostgreSQLServer.shared()
        let uri = try server.createDatabase()
        try await withRunning(Self.holdingTheEighthPage(name: "term", id: 4402, seed: 13)) { simulator in
            let expected = try simulator.reachableSHAs(owner: "acme", name: "term")
            let daemon = try startDaemon(
                store: uri, simulator: simulator, repositories: ["acme/term"], settings: "git_bootstrap: false")
            defer { daemon.stop() }
            await Self.expectWalkUnderWay(daemon, server, uri)
            // The walk waits for its eighth page with seven stored: its connections are cut there,
            // and the held page, once released, is written on a connection that is gone.
            // The query blocks, so it runs on a thread of its own (`onThread`).
            #expect(await onThread { Self.terminateConnections(server, uri) } > 0, "\(daemon.log)")
            simulator.setFaults(FaultPlan())
            #expect(await waitUntil(timeout: .seconds(60)) { daemon.log.contains("sync failed") }, "\(daemon.log)")
            #expect(await waitUntil(timeout: .seconds(180)) { Self.memberSHAs(server, uri) == expected }, "\(daemon.log)")
            #expect(await waitUntil(timeout: .seconds(60)) { Self.count("sync_walks", server, uri) == 0 }, "\(daemon.log)")
            #expect(daemon.process.isRunning)
            try await Self.expectCleanExit(daemon, store: uri)
        }
    }

    /// A wrong password in the `postgresql-password` credential: one line naming
    /// the refusal (never the password), 503, still running; the right password
    /// put in the credential is used at the next attempt.
    @Test func aWrongPasswordIsWaitedOutUntilTheCredentialIsRight() async throws {
        let server = try await PostgreSQLServer.shared()
        try server.ensurePasswordRole()
        let uri = try server.createDatabase(user: PostgreSQLServer.passwordRole)
        let credentials = directory.path("credentials")
        try FileManager.default.createDirectory(atPath: credentials, withIntermediateDirectories: false)
        let credential = credentials + "/postgresql-password"
        let wrong = "not-the-Pa55word-4711"
        try (wrong + "\n").write(toFile: credential, atomically: true, encoding: .utf8)
        try await withRunning(startSimulator([("widgets", 150)])) { simulator in
            let expected = try simulator.reachableSHAs(owner: "acme", name: "widgets")
            let daemon = try startDaemon(
                store: uri, simulator: simulator, repositories: ["acme/widgets"],
                environment: ["CREDENTIALS_DIRECTORY": credentials])
            defer { daemon.stop() }
            let base = try await Self.metricsBase(daemon)
            #expect(await waitUntil(timeout: .seconds(30)) { !Self.waitingLines(daemon.log).isEmpty }, "\(daemon.log)")
            let waiting = Self.waitingLines(daemon.log)
            #expect(waiting.first?.contains("password authentication failed") == true, "\(waiting)")
            #expect(await Self.status(base + "/readyz") == 503)
            #expect(daemon.process.isRunning)

            try (PostgreSQLServer.passwordRolePassword + "\n").write(toFile: credential, atomically: true, encoding: .utf8)
            #expect(await Self.answers(base + "/readyz", 200, within: .seconds(120)), "\(daemon.log)")
            #expect(await waitUntil(timeout: .seconds(120)) { Self.memberSHAs(server, uri) == expected }, "\(daemon.log)")
            daemon.signal(SIGTERM)
            #expect(await daemon.waitForExit(timeout: .seconds(15)) == 0, "\(daemon.log)")
            for password in [wrong, PostgreSQLServer.passwordRolePassword] {
                #expect(!daemon.log.contains(password), "a password in the log")
            }
        }
    }

    /// A database that does not exist: one line naming it, 503, still running;
    /// systemd hears READY=1 with a STATUS saying commitsd waits (its start
    /// timeout would otherwise restart it in a loop); SIGTERM while it waits stops it cleanly.
    @Test func aMissingDatabaseIsNamedAndAStopWhileWaitingIsClean() async throws {
        let server = try await PostgreSQLServer.shared()
        let uri = server.uri(database: "no_such_database_\(UUID().uuidString.prefix(8).lowercased())")
        let socket = try NotifySocket(path: directory.path("notify.sock"))
        try await withRunning(startSimulator([("widgets", 10)])) { simulator in
            let daemon = try startDaemon(
                store: uri, simulator: simulator, repositories: ["acme/widgets"], environment: ["NOTIFY_SOCKET": socket.path])
            defer { daemon.stop() }
            let notified = await onThread { socket.receive(until: "READY=1", timeout: .seconds(30)) }
            #expect(notified.last == "READY=1\nSTATUS=waiting for the store to open; the log says why", "\(notified)")
            let base = try await Self.metricsBase(daemon)
            #expect(await waitUntil(timeout: .seconds(30)) { !Self.waitingLines(daemon.log).isEmpty }, "\(daemon.log)")
            #expect(Self.waitingLines(daemon.log).first?.contains("does not exist") == true, "\(daemon.log)")
            #expect(await Self.status(base + "/readyz") == 503)
            #expect(await Self.status(base + "/healthz") == 200)
            daemon.signal(SIGTERM)
            #expect(await daemon.waitForExit(timeout: .seconds(15)) == 0, "\(daemon.log)")
        }
    }
}
