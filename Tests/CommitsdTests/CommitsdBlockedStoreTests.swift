import Foundation
import GitHubSim
import MirrorTestSupport
import PostgreSQL
import Testing

/// A store that does not answer: a lock an operator's session holds, a
/// database server that hangs, a listener that cannot bind. Every command and
/// the daemon end in bounded time with one line saying why, and nothing stored
/// is lost; commitsd exits (0 after SIGTERM, non-zero when it cannot start)
/// without a fatal error.
@Suite(.serialized) struct CommitsdBlockedStoreTests {
    let directory: TemporaryDirectory
    init() throws { directory = try TemporaryDirectory() }

    static let token = ["GITHUB_TOKEN": SecretScan.token]

    static func sync(_ repository: String, _ uri: String, _ simulator: GitHubSimulator, environment: [String: String] = [:])
        async throws -> ProcessResult
    {
        try await run(
            "commitsctl", ["sync", repository, "--db", uri, "--api-url", simulator.baseURL],
            environment: Self.token.merging(environment) { _, new in new })
    }

    @Test func aLockHeldOnCommitsFailsSyncAndQueryInBoundedTimeNamingItsHolder() async throws {
        let server = try await PostgreSQLServer.shared()
        try await withRunning(startSimulator([("first", 120), ("second", 250)])) { simulator in
            let uri = try server.createDatabase()
            #expect(try await sync("acme/first", uri, simulator).status == 0)
            // What an operator's VACUUM FULL or ALTER TABLE holds, left idle inside its transaction.
            let operatorSession = try PostgreSQLConnection(uri: uri, applicationName: "psql")
            try operatorSession.execute("BEGIN")
            try operatorSession.execute("LOCK TABLE commits IN ACCESS EXCLUSIVE MODE")
            let shortWait = ["PGOPTIONS": "-c lock_timeout=2s"]
            let started = ContinuousClock.now
            async let blockedSync = sync("acme/second", uri, simulator, environment: shortWait)
            // The query waits the default lock_timeout.
            async let blockedQuery = run("commitsctl", ["query", "--db", uri, "--limit", "5"])
            let (syncResult, queryResult) = try await (blockedSync, blockedQuery)
            #expect(ContinuousClock.now - started < .seconds(60))
            for result in [syncResult, queryResult] {
                #expect(result.status != 0, "\(result.stdout)\(result.stderr)")
                let lines = result.stderr.split(separator: "\n")
                #expect(lines.count == 1, "one line: \(result.stderr)")
                #expect(result.stderr.contains("locked") && result.stderr.contains("lock_timeout"), "\(result.stderr)")
                #expect(result.stderr.contains("holds AccessExclusiveLock on commits"), "\(result.stderr)")
                #expect(result.stderr.contains("pid \(operatorSession.backendPID) (psql"), "\(result.stderr)")
            }
            try operatorSession.execute("ROLLBACK")
            // Nothing half-stored: the second sync stores the whole history, and check finds nothing wrong.
            #expect(try await sync("acme/second", uri, simulator).status == 0)
            let check = try await run("commitsctl", ["check", "--db", uri])
            #expect(check.status == 0, "\(check.stdout)\(check.stderr)")
            let count = try server.execute(
                """
                SELECT count(*) FROM repository_commits rc JOIN repositories r ON r.id = rc.repository_id
                WHERE r.full_name = 'acme/second'
                """, database: CommitsdSharedQueueTests.database(of: uri))
            #expect(count.first?.first == "250")
        }
    }

    /// Waits for the leases a stopped daemon left in `database` to run out (a 5 s `lease_duration` keeps that short).
    static func expectLeasesRunOut(_ server: PostgreSQLServer, _ database: String) async {
        #expect(
            await waitUntil(timeout: .seconds(30)) {
                (try? server.execute("SELECT count(*) FROM sync_leases WHERE lease_until > now()", database: database))?
                    .first?.first == "0"
            })
    }

    func sync(_ repository: String, _ uri: String, _ simulator: GitHubSimulator, environment: [String: String] = [:])
        async throws -> ProcessResult
    {
        try await Self.sync(repository, uri, simulator, environment: environment)
    }

    /// commitsd syncing `repositories` into `store` every second, with `settings` added and `environment` beside the token.
    static func startDaemon(
        in directory: TemporaryDirectory, store: String, simulator: GitHubSimulator, repositories: [String],
        settings: String = "", gitBootstrap: Bool = false, environment: [String: String] = [:]
    ) throws -> DaemonProcess {
        try DaemonProcess.mirroring(
            repositories, from: simulator, in: directory, store: store, settings: "git_bootstrap: \(gitBootstrap)\n\(settings)",
            environment: environment, logLevel: "info")
    }

    func startDaemon(store: String, simulator: GitHubSimulator, repositories: [String], settings: String = "") throws
        -> DaemonProcess
    {
        try Self.startDaemon(in: directory, store: store, simulator: simulator, repositories: repositories, settings: settings)
    }

    @Test func sigtermWhileTheDatabaseServerHangsExitsZeroInsideTheStopTimeout() async throws {
        let server = try await PostgreSQLServer.start()
        let simulator = try await CommitsdSharedQueueTests.simulator(repositories: 1, commits: 5_000, delay: .milliseconds(100))
        try await withRunning(simulator) { simulator in
            let uri = try server.createDatabase()
            let daemon = try startDaemon(
                store: uri, simulator: simulator, repositories: ["acme/repo-0"], settings: "lease_duration: 5s")
            defer { daemon.stop() }
            // Stopped in the middle of a first sync.
            #expect(
                await waitUntil(timeout: .seconds(60)) {
                    (try? server.execute("SELECT count(*) FROM commits", database: CommitsdSharedQueueTests.database(of: uri)))?
                        .first?.first.flatMap { $0.flatMap(Int.init) } ?? 0 > 0
                }, "\(daemon.log)")
            try server.signalAll(SIGSTOP)
            defer { try? server.signalAll(SIGCONT) }
            try await Task.sleep(for: .seconds(1))
            daemon.signal(SIGTERM)
            let status = await daemon.waitForExit(timeout: .seconds(30))
            #expect(status == 0, "exit \(String(describing: status)) within the unit's TimeoutStopSec: \(daemon.log)")
            #expect(!daemon.log.contains("Fatal error"), "\(daemon.log)")
            try server.signalAll(SIGCONT)
            // What was stored is whole: once the lease the daemon left runs out, a sync finishes the history.
            await Self.expectLeasesRunOut(server, CommitsdSharedQueueTests.database(of: uri))
            #expect(try await sync("acme/repo-0", uri, simulator).status == 0)
            let check = try await run("commitsctl", ["check", "--db", uri])
            #expect(check.status == 0, "\(check.stdout)\(check.stderr)")
        }
    }

    @Test func aListenerThatCannotBindStopsTheDaemonSayingWhyAtCritical() async throws {
        let simulator = try await CommitsdSharedQueueTests.simulator(repositories: 1, commits: 3_000, delay: .milliseconds(100))
        try await withRunning(simulator) { simulator in
            // The port the webhooks ask for is taken by another listener: the simulator's.
            let port = try #require(URL(string: simulator.baseURL)?.port)
            let store = directory.path("mirror.sqlite")
            try directory.write("secret", "a webhook secret of sufficient length\n")
            let daemon = try startDaemon(
                store: store, simulator: simulator, repositories: ["acme/repo-0"],
                settings: "webhook_listen: 127.0.0.1:\(port)\nwebhook_secret_file: \(directory.path("secret"))")
            defer { daemon.stop() }
            let status = await daemon.waitForExit(timeout: .seconds(40))
            #expect(status != nil && status != 0, "exit \(String(describing: status)): \(daemon.log)")
            #expect(!daemon.log.contains("Fatal error"), "\(daemon.log)")
            let critical = daemon.log.split(separator: "\n").filter { $0.contains("critical") }
            #expect(
                critical.contains { $0.contains("receiving webhooks on 127.0.0.1:\(port) failed") }, "\(daemon.log)")
            // The first sync may have begun before the listener failed: sound, its walk pending (3), or nothing (0).
            let check = try await run("commitsctl", ["check", "--db", store])
            #expect([0, 3].contains(check.status) && check.stdout.contains("integrity: ok"), "\(check.stdout)\(check.stderr)")
        }
    }

    @Test func checkConfigRefusesTwoListenersOnOneAddress() async throws {
        try directory.write("secret", "a webhook secret of sufficient length\n")
        for (metrics, webhooks) in [("127.0.0.1:9464", "127.0.0.1:9464"), ("0.0.0.0:9500", "127.0.0.1:9500")] {
            let path = try directory.write(
                "listeners.yaml",
                """
                store: \(directory.path("mirror.sqlite"))
                metrics_listen: \(metrics)
                webhook_listen: \(webhooks)
                webhook_secret_file: \(directory.path("secret"))
                repositories: [acme/widgets]

                """)
            let result = try await run("commitsd", ["--check-config", "--config", path])
            #expect(result.status == 2, "\(result.stdout)\(result.stderr)")
            #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
            #expect(result.stderr.contains("webhook_listen") && result.stderr.contains("metrics_listen"), "\(result.stderr)")
        }
        let distinct = try directory.write(
            "distinct.yaml",
            """
            store: \(directory.path("mirror.sqlite"))
            metrics_listen: 127.0.0.1:0
            webhook_listen: 127.0.0.1:0
            webhook_secret_file: \(directory.path("secret"))
            repositories: [acme/widgets]

            """)
        let accepted = try await run("commitsd", ["--check-config", "--config", distinct])
        #expect(accepted.status == 0, "\(accepted.stdout)\(accepted.stderr)")
    }
}
