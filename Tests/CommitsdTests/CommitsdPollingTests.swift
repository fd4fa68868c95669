import Foundation
import GitHubSim
import MirrorTestSupport
import Testing

/// commitsd's schedule as a process against github-sim: adaptive intervals and
/// long walks taken in steps, counted in the simulator's requests and the
/// order of the daemon's log lines, never in wall-clock gaps.
@Suite(.serialized) struct CommitsdPollingTests {
    let directory: TemporaryDirectory
    init() throws { directory = try TemporaryDirectory() }
    var store: String { directory.path("state/commits.sqlite") }

    func startDaemon(_ simulator: GitHubSimulator, settings: String, repositories: [String]) throws -> DaemonProcess {
        let config = try directory.write(
            "config.yaml",
            """
            store: state/commits.sqlite
            api_url: \(simulator.baseURL)
            \(settings)
            repositories:
            \(repositories.map { "  - \($0)" }.joined(separator: "\n"))

            """)
        return try DaemonProcess(
            ["--config", config, "--log-level", "info"], environment: ["GITHUB_TOKEN": SecretScan.token],
            logPath: directory.path("commitsd.log"))
    }

    func mirrored(_ simulator: GitHubSimulator, _ name: String) throws -> Bool {
        StoreInspection(store).memberSHAsSoFar(of: "acme/\(name)") == (try simulator.reachableSHAs(owner: "acme", name: name))
    }

    /// Whether a log line is about `acme/<repository>` (metadata is sorted, so `repo=` may end the line).
    func mentions(_ line: Substring, _ repository: String) -> Bool {
        line.hasSuffix(" repo=acme/\(repository)") || line.contains(" repo=acme/\(repository) ")
    }

    /// The daemon's log lines about `acme/<repository>` that contain `message`.
    func lines(_ log: String, _ message: String, repository: String) -> [Substring] {
        log.split(separator: "\n").filter { $0.contains(message) && mentions($0, repository) }
    }

    /// A repository that keeps moving is polled at min_interval; one whose
    /// newest commit is years old at max_interval (here: not again within
    /// the test); one with its own `interval` stays on it, dormant or not.
    @Test func anActiveRepositoryIsPolledMoreOftenThanADormantOne() async throws {
        try await withRunning(startSimulator([("active", 300), ("dormant", 200), ("steady", 200)])) { simulator in
            try simulator.moveHead(owner: "acme", name: "active", back: 150)
            let daemon = try startDaemon(
                simulator, settings: "default_interval: 1s\nmin_interval: 1s\nmax_interval: 1h",
                repositories: ["acme/active", "acme/dormant", "{name: acme/steady, interval: 1s}"])
            defer { daemon.stop() }
            #expect(
                try await waitUntil { try ["active", "dormant", "steady"].allSatisfy { try mirrored(simulator, $0) } },
                "\(daemon.log)")
            // A first sync stores commits, which counts as a move: one more poll
            // at the minimum, then the head's age (years: the synthetic history
            // is dated from 2015) sets the maximum.
            #expect(
                await waitUntil { lines(daemon.log, "info sync finished ", repository: "dormant").count >= 2 }, "\(daemon.log)")

            simulator.resetStats()
            let activeBefore = lines(daemon.log, "info sync finished ", repository: "active").count
            // The active repository gets a commit about every quarter second.
            let mover = Task {
                for _ in 0..<140 where !Task.isCancelled {
                    try simulator.moveHead(owner: "acme", name: "active", forward: 1)
                    try await Task.sleep(for: .milliseconds(250))
                }
            }
            defer { mover.cancel() }
            #expect(await waitUntil(timeout: .seconds(40)) { simulator.stats().requestsByRepository["acme/steady", default: 0] >= 5 })
            let counts = simulator.stats().requestsByRepository
            let activePolls = lines(daemon.log, "info sync finished ", repository: "active").count - activeBefore
            #expect(counts["acme/dormant", default: 0] == 0, "\(counts)\n\(daemon.log)")
            // Polled about as often as the fixed one (each poll that saw a move: a probe, a lookup, a page).
            #expect(activePolls >= 3, "\(daemon.log)")
            #expect(counts["acme/active", default: 0] >= activePolls, "\(counts)")
            #expect(daemon.log.contains("head.new="), "the active repository's moves were seen")
            mover.cancel()
            daemon.signal(SIGTERM)
            #expect(await daemon.waitForExit(timeout: .seconds(5)) == 0)
            #expect(SecretScan.leaks(in: ["log": daemon.log]).isEmpty)
        }
    }

    /// A first sync of 60 pages runs in steps of 10: a small repository polled
    /// every second is synced between the steps, and no page is fetched twice.
    @Test func aLongFirstSyncDoesNotHoldUpTheOthersPolls() async throws {
        try await withRunning(startSimulator([("small", 40), ("huge", 6000)])) { simulator in
            var faults = FaultPlan()
            faults.delay = .milliseconds(40)
            simulator.setFaults(faults)
            let daemon = try startDaemon(simulator, settings: "default_interval: 1s", repositories: ["acme/small", "acme/huge"])
            defer { daemon.stop() }
            #expect(try await waitUntil(timeout: .seconds(90)) { try mirrored(simulator, "huge") }, "\(daemon.log)")
            #expect(await waitUntil { lines(daemon.log, "info sync finished ", repository: "huge").count >= 1 }, "\(daemon.log)")
            let stats = simulator.stats()
            let log = daemon.log.split(separator: "\n")
            let steps = log.indices.filter { log[$0].contains("info walk paused at a page boundary") && mentions(log[$0], "huge") }
            let finished = try #require(log.indices.first { log[$0].contains("info sync finished ") && mentions(log[$0], "huge") })
            #expect(steps.count == 5, "60 pages in steps of 10: \(steps.count) pauses\n\(daemon.log)")
            let first = try #require(steps.first)
            let smallPolls = log[first..<finished].filter { $0.contains("info sync finished ") && mentions($0, "small") }
            #expect(smallPolls.count >= 2, "small was polled \(smallPolls.count) times during huge's first sync\n\(daemon.log)")
            // One lookup, a head probe per step (a free 304 after the first), and each of the 60 pages once.
            let hugeRequests = stats.requestsByRepository["acme/huge", default: 0] + stats.requestsByRepository["#1002", default: 0]
            #expect(hugeRequests == 1 + (steps.count + 1) + 60, "\(stats.requestsByRepository)")
            #expect(try StoreInspection(store).integrity() == "ok")
            daemon.signal(SIGTERM)
            #expect(await daemon.waitForExit(timeout: .seconds(5)) == 0)
        }
    }
}
