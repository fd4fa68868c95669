import Foundation
import GitHubSim
import MirrorTestSupport
import PostgreSQL
import Testing

/// SIGTERM to commitsd while its sync waits on something that does not answer:
/// a git fetch the server trickles, a GitHub App token endpoint that hangs, a
/// lock another PostgreSQL session holds on `commits`. Each time the daemon
/// exits 0 inside the unit's TimeoutStopSec without a fatal error, and once the
/// fault is gone a sync completes and `check` finds the store whole.
@Suite(.serialized) struct CommitsdBlockedShutdownTests {
    enum Blocker: String, CaseIterable, CustomTestStringConvertible {
        case stalledGitFetch, hungTokenEndpoint, lockHeldOnCommits, lockHeldWhileOpeningTheStore
        var testDescription: String { rawValue }
    }

    @Test(arguments: Blocker.allCases) func sigtermWhileASyncIsBlockedExitsZeroInsideTheStopTimeout(_ blocker: Blocker)
        async throws
    {
        let directory = try TemporaryDirectory()
        switch blocker {
        case .stalledGitFetch: try await stalledGitFetch(in: directory)
        case .hungTokenEndpoint: try await hungTokenEndpoint(in: directory)
        case .lockHeldOnCommits: try await lockHeldOnCommits(in: directory, fromTheStart: false)
        case .lockHeldWhileOpeningTheStore: try await lockHeldOnCommits(in: directory, fromTheStart: true)
        }
    }

    /// Sends SIGTERM once `blocked` says the daemon waits, then expects exit 0 within 30 s and no fatal error.
    func expectSigtermEndsCleanly(_ daemon: DaemonProcess, once blocked: () async throws -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(60)
        var waiting = false
        while !waiting && ContinuousClock.now < deadline {
            waiting = try await blocked()
            if !waiting { try await Task.sleep(for: .milliseconds(100)) }
        }
        #expect(waiting, "never blocked: \(daemon.log.suffix(3000))")
        // Long enough for the wait to be under way, far shorter than any timeout it waits for.
        try await Task.sleep(for: .seconds(1))
        daemon.signal(SIGTERM)
        let status = await daemon.waitForExit(timeout: .seconds(30))
        #expect(status == 0, "exit \(String(describing: status)) within the unit's TimeoutStopSec: \(daemon.log.suffix(3000))")
        #expect(!daemon.log.contains("Fatal error"), "\(daemon.log.suffix(3000))")
    }

    /// Expects `sync` and then `check` of `store` to exit 0.
    func expectCompletingSyncAndCheck(_ sync: ProcessResult, store: String) async throws {
        #expect(sync.status == 0, "\(sync.stdout)\(sync.stderr)")
        let check = try await run("commitsctl", ["check", "--db", store])
        #expect(check.status == 0, "\(check.stdout)\(check.stderr)")
    }

    func stalledGitFetch(in directory: TemporaryDirectory) async throws {
        var configuration = SimConfiguration()
        configuration.validTokens = [SecretScan.token]
        configuration.faults.git = .trickledPack
        // 30 pages: a first sync that reads its history over git, a byte every half second.
        try await withRunning(startSimulator([("stalled", 3_000)], configuration: configuration)) { simulator in
            let store = directory.path("commits.sqlite")
            let daemon = try CommitsdBlockedStoreTests.startDaemon(
                in: directory, store: store, simulator: simulator, repositories: ["acme/stalled"], gitBootstrap: true)
            defer { daemon.stop() }
            // Advertisement, ls-refs, then the fetch whose pack trickles.
            try await expectSigtermEndsCleanly(daemon) { simulator.stats().gitRequests >= 3 }
            simulator.setFaults(FaultPlan())
            let sync = try await CommitsdBlockedStoreTests.sync("acme/stalled", store, simulator)
            try await expectCompletingSyncAndCheck(sync, store: store)
            #expect(
                StoreInspection(store).memberSHAsSoFar(of: "acme/stalled")
                    == (try simulator.reachableSHAs(owner: "acme", name: "stalled")))
        }
    }

    func hungTokenEndpoint(in directory: TemporaryDirectory) async throws {
        let hung = try await HungTokenEndpoint.start(in: directory)
        defer { hung.simulator.stop() }
        // A request timeout far beyond the test's bounds: SIGTERM lands inside the hung mint.
        let config = try directory.write(
            "long-timeout.yaml",
            try String(contentsOfFile: hung.config, encoding: .utf8)
                .replacingOccurrences(of: "request_timeout: 2s", with: "request_timeout: 5m"))
        let daemon = try DaemonProcess(
            ["--config", config, "--log-level", "info"], logPath: directory.path("commitsd.log"))
        defer { daemon.stop() }
        try await expectSigtermEndsCleanly(daemon) { try await hung.tokenRequests() >= 1 }
        try await hung.release()
        let sync = try await run("commitsctl", ["sync", "--config", hung.config])
        try await expectCompletingSyncAndCheck(sync, store: hung.store)
    }

    /// The lock taken while a sync would store new commits, or `fromTheStart`, before commitsd opens the store.
    func lockHeldOnCommits(in directory: TemporaryDirectory, fromTheStart: Bool) async throws {
        let server = try await PostgreSQLServer.shared()
        try await withRunning(startSimulator([("first", 120), ("second", 250)])) { simulator in
            let uri = try server.createDatabase()
            let database = CommitsdSharedQueueTests.database(of: uri)
            let stored = { (repository: String) in
                (try? server.execute(
                    """
                    SELECT count(*) FROM repository_commits rc JOIN repositories r ON r.id = rc.repository_id
                    WHERE r.full_name = $1
                    """, database: database, [repository]))?.first?.first.flatMap { $0.flatMap(Int.init) } ?? 0
            }
            try simulator.moveHead(owner: "acme", name: "second", back: 100)
            let firstPart = try simulator.reachableSHAs(owner: "acme", name: "second").count
            #expect(try await CommitsdBlockedStoreTests.sync("acme/first", uri, simulator).status == 0)
            let operatorSession = try PostgreSQLConnection(uri: uri, applicationName: "psql")
            func lock() throws {
                try operatorSession.execute("BEGIN")
                try operatorSession.execute("LOCK TABLE commits IN ACCESS EXCLUSIVE MODE")
            }
            defer { try? operatorSession.execute("ROLLBACK") }
            if fromTheStart { try lock() }
            // The default lock_timeout (30 s): the daemon is still waiting when the signal comes.
            let daemon = try CommitsdBlockedStoreTests.startDaemon(
                in: directory, store: uri, simulator: simulator, repositories: ["acme/first", "acme/second"],
                settings: "lease_duration: 5s")
            defer { daemon.stop() }
            if !fromTheStart {
                #expect(await waitUntil(timeout: .seconds(60)) { stored("acme/second") == firstPart }, "\(daemon.log.suffix(3000))")
                try lock()
            }
            try simulator.moveHead(owner: "acme", name: "second", forward: 100)
            try await expectSigtermEndsCleanly(daemon) {
                (try? server.execute("SELECT count(*) FROM pg_locks WHERE NOT granted", database: database))?.first?.first
                    .flatMap { $0.flatMap(Int.init) } ?? 0 > 0
            }
            try operatorSession.execute("ROLLBACK")
            await CommitsdBlockedStoreTests.expectLeasesRunOut(server, database)
            let sync = try await CommitsdBlockedStoreTests.sync("acme/second", uri, simulator)
            try await expectCompletingSyncAndCheck(sync, store: uri)
            #expect(stored("acme/second") == 250)
        }
    }
}
