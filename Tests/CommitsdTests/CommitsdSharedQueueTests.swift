import Foundation
import GitHubSim
import MirrorTestSupport
import Testing
import Curl

/// Issue #27: several real commitsd processes on one real PostgreSQL database,
/// claiming repositories from its shared queue under leases. Every wait is a
/// bounded poll of what the processes and the database show; nothing is timed.
@Suite(.serialized) struct CommitsdSharedQueueTests {
    let directory: TemporaryDirectory
    init() throws { directory = try TemporaryDirectory() }

    /// `count` repositories of `commits` each under acme, served `delay` slower per request.
    static func simulator(repositories count: Int, commits: Int, delay: Duration) async throws -> GitHubSimulator {
        let simulator = try await startSimulator((0..<count).map { ("repo-\($0)", commits) })
        var faults = FaultPlan()
        faults.delay = delay
        simulator.setFaults(faults)
        return simulator
    }

    /// commitsd named `name`, claiming from `uri`'s queue; polls once an hour, so after the
    /// first syncs it spends no requests and the counts compare.
    func startDaemon(_ name: String, uri: String, simulator: GitHubSimulator, repositories: Int, lease: String = "60s")
        throws -> DaemonProcess
    {
        try DaemonProcess.mirroring(
            (0..<repositories).map { "acme/repo-\($0)" }, from: simulator, in: directory, store: uri, named: name, interval: "1h",
            settings: "lease_duration: \(lease)\nmetrics_listen: 127.0.0.1:0\ngit_bootstrap: false", logLevel: "info")
    }

    static func database(of uri: String) -> String { String(uri.split(separator: "/").last!) }

    /// Every repository's branch commits in the store, as (repository, sha) pairs; empty while unreadable.
    static func stored(_ server: PostgreSQLServer, _ uri: String) -> Set<String> {
        let rows = try? server.execute(
            """
            SELECT lower(r.full_name) || ' ' || c.sha FROM repository_commits rc
            JOIN commits c ON c.id = rc.commit_id JOIN repositories r ON r.id = rc.repository_id
            WHERE rc.off_branch_since IS NULL
            """, database: database(of: uri))
        return Set((rows ?? []).compactMap { $0.first ?? nil })
    }

    static func expected(_ simulator: GitHubSimulator, repositories: Int) throws -> Set<String> {
        var all: Set<String> = []
        for n in 0..<repositories {
            for sha in try simulator.reachableSHAs(owner: "acme", name: "repo-\(n)") { all.insert("acme/repo-\(n) \(sha)") }
        }
        return all
    }

    /// Waits until the store holds exactly `expected` with no walk pending; whether it did.
    static func waitExact(_ server: PostgreSQLServer, _ uri: String, _ expected: Set<String>, within timeout: Duration) async -> Bool {
        await waitUntil(timeout: timeout, every: .milliseconds(500)) {
            stored(server, uri) == expected
                && (try? server.execute("SELECT count(*) FROM sync_walks", database: database(of: uri)))?.first?.first == "0"
        }
    }

    /// The repositories `owner` holds under a live lease, with their lease generations.
    static func held(by owner: String, _ server: PostgreSQLServer, _ uri: String) -> [String: Int] {
        let rows = try? server.execute(
            "SELECT lower(repository), lease_generation FROM sync_leases WHERE owner = $1 AND lease_until > now()",
            database: database(of: uri), [owner])
        return Dictionary((rows ?? []).compactMap { row in row[0].flatMap { r in row[1].flatMap(Int.init).map { (r, $0) } } }) { $1 }
    }

    static func generation(of repository: String, _ server: PostgreSQLServer, _ uri: String) -> Int? {
        let rows = try? server.execute(
            "SELECT lease_generation FROM sync_leases WHERE lower(repository) = $1", database: database(of: uri), [repository])
        return rows?.first?.first.flatMap { $0.flatMap(Int.init) }
    }

    /// The daemon's `/metrics` samples (`CommitsdMetricsTests.samples`); empty when it does not answer.
    static func metrics(_ base: String) async -> [String: Double] {
        guard let response = try? await CommitsdMetricsTests.get(base + "/metrics") else { return [:] }
        return CommitsdMetricsTests.samples(String(decoding: response.body, as: UTF8.self))
    }

    func stop(_ daemons: [DaemonProcess]) async {
        for daemon in daemons { daemon.signal(SIGTERM) }
        for daemon in daemons {
            #expect(await daemon.waitForExit(timeout: .seconds(30)) == 0, "\(daemon.log)")
        }
    }

    func check(_ uri: String) async throws {
        let check = try await run("commitsctl", ["check", "--db", uri])
        #expect(check.status == 0, "\(check.stdout)\(check.stderr)")
    }

    @Test func threeDaemonsShareTheWorkAndWalkNoRepositoryTwice() async throws {
        let server = try await PostgreSQLServer.shared()
        let count = 30
        try await withRunning(Self.simulator(repositories: count, commits: 250, delay: .milliseconds(30))) { simulator in
            let expected = try Self.expected(simulator, repositories: count)
            // One daemon alone: what the work costs.
            let alone = try server.createDatabase()
            let single = try startDaemon("alone", uri: alone, simulator: simulator, repositories: count)
            defer { single.stop() }
            #expect(await Self.waitExact(server, alone, expected, within: .seconds(300)), "\(single.log)")
            await stop([single])
            let requestsAlone = simulator.stats().requests
            simulator.resetStats()

            let shared = try server.createDatabase()
            let daemons = try (1...3).map { try startDaemon("mirror-\($0)", uri: shared, simulator: simulator, repositories: count) }
            defer { for daemon in daemons { daemon.stop() } }
            #expect(await Self.waitExact(server, shared, expected, within: .seconds(300)), "\(daemons.map(\.log))")
            let requestsShared = simulator.stats().requests
            // Status names no holder once everything is released, on a store daemons share.
            let status = try await run("commitsctl", ["status", "--db", shared, "--json"])
            #expect(status.status == 0 && status.stdout.contains("\"held_by\""), "\(status.stderr)")
            await stop(daemons)
            try await check(shared)
            // No repository walked twice: the three spend what one spends (allowing a few polls).
            #expect(requestsShared <= requestsAlone + requestsAlone / 10, "alone \(requestsAlone), shared \(requestsShared)")
            let working = daemons.filter { $0.log.contains("sync finished") }
            #expect(working.count >= 2, "the work was shared: \(daemons.map(\.log))")
            #expect(!daemons.contains { $0.log.contains("claim lost") })
        }
    }

    @Test func aKilledDaemonsRepositoriesAreFinishedByTheOthers() async throws {
        let server = try await PostgreSQLServer.shared()
        let count = 30
        try await withRunning(Self.simulator(repositories: count, commits: 450, delay: .milliseconds(40))) { simulator in
            let expected = try Self.expected(simulator, repositories: count)
            let uri = try server.createDatabase()
            let daemons = try (1...3).map {
                try startDaemon("mirror-\($0)", uri: uri, simulator: simulator, repositories: count, lease: "5s")
            }
            defer { for daemon in daemons { daemon.stop() } }
            // Killed while it holds a claim in the middle of first syncs.
            #expect(await waitUntil(timeout: .seconds(120)) { !Self.held(by: "mirror-1", server, uri).isEmpty }, "\(daemons[0].log)")
            daemons[0].signal(SIGKILL)
            #expect(await daemons[0].waitForExit(timeout: .seconds(30)) != nil)
            #expect(await Self.waitExact(server, uri, expected, within: .seconds(300)), "\(daemons.map(\.log))")
            await stop(Array(daemons.dropFirst()))
            try await check(uri)
        }
    }

    @Test func aStoppedDaemonWakingAfterATakeoverWritesNothing() async throws {
        let server = try await PostgreSQLServer.shared()
        let count = 4
        try await withRunning(Self.simulator(repositories: count, commits: 1_500, delay: .milliseconds(60))) { simulator in
            let expected = try Self.expected(simulator, repositories: count)
            let uri = try server.createDatabase()
            let sleeper = try startDaemon("sleeper", uri: uri, simulator: simulator, repositories: count, lease: "5s")
            defer { sleeper.stop() }
            let sleeperMetrics = try await CommitsdPostgreSQLTests.metricsBase(sleeper)
            var held: [String: Int] = [:]
            // Stopped while it holds a claim (a claim can end between the look and the stop: look again).
            for _ in 0..<20 where held.isEmpty {
                guard await waitUntil(timeout: .seconds(60), every: .milliseconds(20), { !Self.held(by: "sleeper", server, uri).isEmpty })
                else { break }
                sleeper.signal(SIGSTOP)
                held = Self.held(by: "sleeper", server, uri)
                if held.isEmpty { sleeper.signal(SIGCONT) }
            }
            let (repository, generation) = try #require(held.first, "\(sleeper.log)")
            // commitsctl status names the holder of what the stopped daemon holds, and until when.
            let status = try await run("commitsctl", ["status", "--db", uri, "--json"])
            let rows = try #require(try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [[String: Any]])
            let row = try #require(rows.first { ($0["repository"] as? String)?.lowercased() == repository }, "\(status.stdout)")
            #expect(row["held_by"] as? String == "sleeper", "\(row)")
            #expect((row["lease_until"] as? String)?.hasSuffix("Z") == true, "\(row)")
            let other = try startDaemon("taker", uri: uri, simulator: simulator, repositories: count, lease: "5s")
            defer { other.stop() }
            // Once the lease runs out, the other claims the repository and finishes everything.
            let takenOver = await waitUntil(timeout: .seconds(120)) {
                (Self.generation(of: repository, server, uri) ?? 0) > generation
            }
            #expect(takenOver, "\(other.log)")
            #expect(await Self.waitExact(server, uri, expected, within: .seconds(300)), "\(other.log)")
            let before = Self.stored(server, uri)

            sleeper.signal(SIGCONT)
            #expect(await waitUntil(timeout: .seconds(60)) { sleeper.log.contains("claim lost") }, "\(sleeper.log)")
            let lost = sleeper.log.split(separator: "\n").filter { $0.contains("claim lost") }
            #expect(lost.count <= held.count, "one line per lost claim: \(lost)")
            #expect(lost.contains { $0.contains("repo=acme/repo-") || $0.contains("repo=\(repository)") }, "\(lost)")
            #expect(Self.stored(server, uri) == before)
            // Counted before the line is logged.
            let sleeping = await Self.metrics(sleeperMetrics)
            #expect((sleeping["commits_mirror_leases_lost_total"] ?? 0) >= 1, "\(sleeping)")
            #expect((sleeping["commits_mirror_lease_claims_total"] ?? 0) >= 1, "\(sleeping)")
            let taking = await Self.metrics(try await CommitsdPostgreSQLTests.metricsBase(other))
            #expect((taking["commits_mirror_lease_takeovers_total"] ?? 0) >= 1, "\(taking)")
            #expect((taking["commits_mirror_lease_claims_total"] ?? 0) >= 1, "\(taking)")
            // Every lease counter is a series from a daemon's first claim, at zero if nothing happened,
            // so an alert's increase() sees the first event (monitoring/commits-mirror.rules.yml).
            #expect(taking["commits_mirror_leases_lost_total"] != nil, "\(taking)")
            #expect(sleeping["commits_mirror_lease_takeovers_total"] != nil, "\(sleeping)")
            await stop([sleeper, other])
            #expect(Self.stored(server, uri) == expected)
            try await check(uri)
        }
    }
}
