import Foundation
import GitHubSim
import MirrorTestSupport
import PostgreSQL
import Testing

/// Three real commitsd on one real PostgreSQL database, nothing set on the
/// server: one is stopped (SIGSTOP: a hung process, a paused machine and a
/// partition without a reset all look so to the server) at random moments of a
/// first sync, some inside a write transaction and some between two. Each time
/// another daemon claims what it held within two lease durations, and the
/// stopped one, woken, says it lost its claims; the store ends exact.
@Suite(.serialized) struct CommitsdStalledLeaseTests {
    let daemons: CommitsdSharedQueueTests
    init() throws { daemons = try CommitsdSharedQueueTests() }

    static let lease: Duration = .seconds(5)
    /// The lock every claimed sync's write transaction takes (PostgreSQLStore.claimedBatchLockKey):
    /// holding it from the test keeps those transactions open, waiting, until released.
    static let claimedBatchLockKey: Int64 = 0x636F_6D6D_6974_7303

    /// The session waiting for the claimed-batch lock, by its client port, and the
    /// process owning that socket (seen by `ss`): the daemon whose write transaction it is.
    static func waitingWriter(_ server: PostgreSQLServer, database: String) -> (pid: Int32, port: String)? {
        let rows = try? server.execute(
            """
            SELECT client_port FROM pg_stat_activity
            WHERE datname = $1 AND wait_event_type = 'Lock' AND wait_event = 'advisory' AND client_port > 0 LIMIT 1
            """, [database])
        guard let port = rows?.first?.first ?? nil,
            let sockets = try? runProgramBlocking("/usr/bin/ss", ["-Htnp", "state", "established", "( sport = :\(port) )"]),
            let owner = sockets.stdout.firstMatch(of: /pid=([0-9]+)/), let pid = Int32(owner.1)
        else { return nil }
        return (pid, port)
    }

    /// Every session of `database`: who, in which state, waiting on what, since when (for a failure's message).
    static func sessions(_ server: PostgreSQLServer, database: String) -> [[String?]] {
        (try? server.execute(
            """
            SELECT client_port::text, application_name, state, wait_event_type || ':' || coalesce(wait_event, ''),
                to_char(state_change, 'HH24:MI:SS.MS'), left(query, 60)
            FROM pg_stat_activity WHERE datname = $1 ORDER BY client_port
            """, [database])) ?? []
    }

    /// The state of the session whose client port is `port` (`idle in transaction` while its client is stopped inside one).
    static func state(ofSessionAt port: String, _ server: PostgreSQLServer, database: String) -> String? {
        let rows = try? server.execute(
            "SELECT state FROM pg_stat_activity WHERE datname = $1 AND client_port = $2::int", [database, port])
        return rows?.first?.first ?? nil
    }

    /// How many sessions of `database` come from `port`; nil when the server could not be asked.
    static func sessionCount(at port: String, _ server: PostgreSQLServer, database: String) -> Int? {
        let rows = try? server.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = $1 AND client_port = $2::int", [database, port])
        return (rows?.first?.first ?? nil).flatMap { Int($0) }
    }

    @Test func aDaemonStoppedInsideOrBetweenTransactionsIsTakenOverWithinTwoLeases() async throws {
        let server = try await PostgreSQLServer.shared()
        let count = 3
        // Slow pages keep the first sync going through every stop; the rest then comes at full speed.
        let simulator = try await CommitsdSharedQueueTests.simulator(
            repositories: count, commits: 8_000, delay: .milliseconds(1_500))
        try await withRunning(simulator) { simulator in
            let expected = try CommitsdSharedQueueTests.expected(simulator, repositories: count)
            let uri = try server.createDatabase()
            let database = CommitsdSharedQueueTests.database(of: uri)
            let names = (1...3).map { "mirror-\($0)" }
            let processes = try names.map {
                try daemons.startDaemon($0, uri: uri, simulator: simulator, repositories: count, lease: "5s")
            }
            defer { for process in processes { process.stop() } }
            let blocker = try PostgreSQLConnection(uri: uri)
            var random = SplitMix(seed: UInt64(Date().timeIntervalSince1970))
            let moments = (0..<10).map { $0 % 2 == 0 }.shuffled(using: &random)
            var stoppedInside = 0
            for (round, inside) in moments.enumerated() {
                let stop = try #require(
                    await stopAHolder(
                        inside: inside, names: names, processes: processes, blocker: blocker, server: server, uri: uri,
                        delay: .milliseconds(Int.random(in: 0..<400, using: &random))),
                    "round \(round): no daemon could be stopped holding a claim; \(processes.map(\.log))")
                if stop.wasInside { stoppedInside += 1 }
                // The taker logs its takeover a moment after its claim moved the generation on: both are waited for.
                let takenOver = await waitUntil(timeout: .seconds(60), every: .milliseconds(100)) {
                    stop.held.allSatisfy { (CommitsdSharedQueueTests.generation(of: $0.key, server, uri) ?? 0) > $0.value }
                        && Self.lastTakeover(of: stop.held.keys, from: names[stop.index], in: processes, after: stop.date) != nil
                }
                // When, by the daemons' own log lines: on a loaded machine this test process may look late.
                let waited = Self.lastTakeover(of: stop.held.keys, from: names[stop.index], in: processes, after: stop.date)
                    .map { Duration.milliseconds(Int64(($0.timeIntervalSince(stop.date)) * 1_000)) }
                #expect(
                    takenOver && waited.map { $0 <= Self.lease * 2 } == true,
                    """
                    round \(round) (inside: \(stop.wasInside)): \(String(describing: waited)) for \(stop.held); sessions: \(Self.sessions(server, database: database))
                    \(processes.map { $0.log.suffix(2_000) })
                    """)
                let stopped = processes[stop.index]
                let lostBefore = stopped.log.components(separatedBy: "claim lost").count
                stopped.signal(SIGCONT)
                #expect(
                    await waitUntil(timeout: .seconds(30)) {
                        stopped.log.components(separatedBy: "claim lost").count > lostBefore
                    }, "round \(round): the woken daemon logs its lost claim: \(stopped.log)")
            }
            #expect(
                stoppedInside == moments.filter { $0 }.count, "stopped inside a transaction \(stoppedInside) times of \(moments)")
            var faults = FaultPlan()
            faults.delay = .zero
            simulator.setFaults(faults)
            #expect(
                await CommitsdSharedQueueTests.waitExact(server, uri, expected, within: .seconds(300)),
                "\(processes.map(\.log))")
            await daemons.stop(processes)
            try await daemons.check(uri)
        }
    }

    struct Stop {
        let index: Int
        let held: [String: Int]
        let date: Date
        let wasInside: Bool
    }

    /// When the last of `repositories` was taken over from `former`, by the
    /// takers' log lines after `date`; `nil` while one was not.
    static func lastTakeover(
        of repositories: Dictionary<String, Int>.Keys, from former: String, in processes: [DaemonProcess], after date: Date
    ) -> Date? {
        let format = ISO8601DateFormatter()
        format.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let lines = processes.flatMap { $0.log.split(separator: "\n") }.filter {
            $0.contains("took over a claim") && $0.contains("lease.former_owner=\(former) ")
        }
        let times = repositories.map { repository in
            lines.filter { $0.hasSuffix("repo=\(repository)") }.compactMap { line in
                line.split(separator: " ").first.flatMap { format.date(from: String($0)) }
            }.filter { $0 >= date }.min()
        }
        guard times.allSatisfy({ $0 != nil }) else { return nil }
        return times.compactMap { $0 }.max()
    }

    /// Stops a daemon that holds a claim: `inside` one of its write transactions
    /// (held open by the claimed-batch lock, released once it is stopped, so that
    /// its session sits idle inside the transaction), or after `delay`, wherever it is.
    func stopAHolder(
        inside: Bool, names: [String], processes: [DaemonProcess], blocker: PostgreSQLConnection, server: PostgreSQLServer,
        uri: String, delay: Duration
    ) async -> Stop? {
        let database = CommitsdSharedQueueTests.database(of: uri)
        for _ in 0..<8 {
            var chosen: Int?
            var waitingPort: String?
            if inside {
                _ = try? blocker.execute("SELECT pg_advisory_lock($1)", [Self.claimedBatchLockKey])
                _ = await waitUntil(timeout: .seconds(20), every: .milliseconds(20)) {
                    guard let waiting = Self.waitingWriter(server, database: database) else { return false }
                    (chosen, waitingPort) = (processes.firstIndex { $0.pid == waiting.pid }, waiting.port)
                    return chosen != nil
                }
            } else {
                _ = await waitUntil(timeout: .seconds(30), every: .milliseconds(20)) {
                    names.contains { !CommitsdSharedQueueTests.held(by: $0, server, uri).isEmpty }
                }
                try? await Task.sleep(for: delay)
                chosen = names.indices.first { !CommitsdSharedQueueTests.held(by: names[$0], server, uri).isEmpty }
            }
            guard let index = chosen else {
                if inside { _ = try? blocker.execute("SELECT pg_advisory_unlock($1)", [Self.claimedBatchLockKey]) }
                continue
            }
            processes[index].signal(SIGSTOP)
            let date = Date()
            if inside { _ = try? blocker.execute("SELECT pg_advisory_unlock($1)", [Self.claimedBatchLockKey]) }
            let held = CommitsdSharedQueueTests.held(by: names[index], server, uri)
            guard !held.isEmpty else {
                processes[index].signal(SIGCONT)
                continue
            }
            // Another daemon's writer may be ahead of it for the lock, and write its batch first. The server
            // ends a session idle in a transaction after half a lease, and nothing else ends a stopped
            // daemon's session this soon, so a session gone is one that was seen inside, only too late.
            let idleInside = await waitUntil(timeout: .seconds(15), every: .milliseconds(10)) {
                guard let port = waitingPort else { return false }
                return Self.state(ofSessionAt: port, server, database: database) == "idle in transaction"
                    || Self.sessionCount(at: port, server, database: database) == 0
            }
            return Stop(index: index, held: held, date: date, wasInside: inside && idleInside)
        }
        return nil
    }
}
