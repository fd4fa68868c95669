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
        try DaemonProcess.mirroring(repositories, from: simulator, in: directory, interval: nil, settings: settings, logLevel: "info")
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

    /// A linear history of `count` commits as a dataset file: the first `visible`
    /// a second apart up to now, the later ones `pushEvery` apart from now on, so
    /// pushed at that pace each is about as old as it would be on GitHub.
    func recentHistory(_ count: Int, visible: Int, pushEvery: Duration) throws -> String {
        let now = Date().timeIntervalSince1970
        let step = Double(pushEvery.components.attoseconds) / 1e18 + Double(pushEvery.components.seconds)
        func sha(_ index: Int) -> String { String(format: "%040x", index + 1) }
        let lines = (0..<count).reversed().map { index in
            let offset = index < visible ? -Double(visible - 1 - index) : Double(index - visible + 1) * step
            let date = ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: now + offset))
            let person = DatasetPerson(name: "Ada", email: "ada@example.com", date: date)
            let commit = DatasetCommit(
                sha: sha(index), parents: index == 0 ? [] : [sha(index - 1)], tree: String(format: "%040x", 0xffff + index),
                author: person, committer: person, message: "change \(index)\n")
            return String(decoding: try! JSONEncoder().encode(commit), as: UTF8.self)
        }
        return try directory.write("recent.jsonl", lines.joined(separator: "\n") + "\n")
    }

    /// A repository pushed to every quarter second is polled at min_interval; one whose newest commit is years old (the synthetic
    /// histories are dated from 2015) at max_interval, here never again within
    /// the test; one with its own `interval` stays on it, dormant or not.
    @Test func anActiveRepositoryIsPolledMoreOftenThanADormantOne() async throws {
        let repositories = [
            SimRepository(
                owner: "acme", name: "active", id: 2001,
                source: .dataset(path: try recentHistory(500, visible: 50, pushEvery: .milliseconds(250)))),
            SimRepository(owner: "acme", name: "dormant", id: 2002, source: .synthetic(SyntheticSpec(commits: 200))),
            SimRepository(owner: "acme", name: "steady", id: 2003, source: .synthetic(SyntheticSpec(commits: 200, seed: 3))),
        ]
        let simulator = try GitHubSimulator(repositories: repositories)
        try await simulator.start()
        try await withRunning(simulator) { simulator in
            try simulator.moveHead(owner: "acme", name: "active", back: 450)
            let daemon = try startDaemon(
                simulator, settings: "default_interval: 1s\nmin_interval: 1s\nmax_interval: 1h",
                repositories: ["acme/active", "acme/dormant", "{name: acme/steady, interval: 1s}"])
            defer { daemon.stop() }
            // The active repository gets a commit about every quarter second.
            let mover = Task {
                for _ in 0..<440 where !Task.isCancelled {
                    try simulator.moveHead(owner: "acme", name: "active", forward: 1)
                    try await Task.sleep(for: .milliseconds(250))
                }
            }
            defer { mover.cancel() }
            #expect(
                try await waitUntil { try ["dormant", "steady"].allSatisfy { try mirrored(simulator, $0) } }, "\(daemon.log)")
            #expect(await waitUntil { !lines(daemon.log, "info sync finished ", repository: "active").isEmpty }, "\(daemon.log)")
            simulator.resetStats()
            let activeBefore = lines(daemon.log, "info sync finished ", repository: "active").count
            // Both conditions, not one then a count of the other: on a loaded machine the active
            // repository's syncs (a probe, a lookup, a page) finish later than the steady one's 304s.
            // At max_interval (1h) it would not be polled three times within the 40 s.
            let activeSyncs = { lines(daemon.log, "info sync finished ", repository: "active").count - activeBefore }
            #expect(
                await waitUntil(timeout: .seconds(40)) {
                    simulator.stats().requestsByRepository["acme/steady", default: 0] >= 5 && activeSyncs() >= 3
                }, "\(daemon.log)")
            let counts = simulator.stats().requestsByRepository
            let activePolls = activeSyncs()
            #expect(counts["acme/dormant", default: 0] == 0, "\(counts)\n\(daemon.log)")
            // Polled about as often as the fixed one (each poll that saw a move: a probe, a lookup, a page).
            #expect(activePolls >= 3, "\(daemon.log)")
            #expect(counts["acme/active", default: 0] >= activePolls, "\(counts)")
            #expect(!lines(daemon.log, "info branch head moved ", repository: "active").isEmpty, "\(daemon.log)")
            mover.cancel()
            daemon.signal(SIGTERM)
            #expect(await daemon.waitForExit(timeout: .seconds(5)) == 0)
            #expect(SecretScan.leaks(in: ["log": daemon.log]).isEmpty)
        }
    }

    /// A first sync of 60 pages over REST runs in steps of 10: a small repository
    /// polled every second is synced between the steps, and no page is fetched twice.
    @Test func aLongFirstSyncDoesNotHoldUpTheOthersPolls() async throws {
        try await withRunning(startSimulator([("small", 40), ("huge", 6000)])) { simulator in
            var faults = FaultPlan()
            faults.delay = .milliseconds(40)
            simulator.setFaults(faults)
            // Over REST: a first sync read over git (issue #12) is one fetch, not pages.
            let daemon = try startDaemon(
                simulator, settings: "default_interval: 1s\ngit_bootstrap: false", repositories: ["acme/small", "acme/huge"])
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
            // Pages 2–60 (by the links' /repositories/{id} form) each exactly once; by
            // name: one lookup, the first page, and a head probe per step (a free
            // 304 after the first) plus any poll after the sync.
            #expect(stats.requestsByRepository["#1002"] == 59, "\(stats.requestsByRepository)")
            #expect(stats.requestsByRepository["acme/huge", default: 0] >= 1 + 1 + (steps.count + 1), "\(stats.requestsByRepository)")
            #expect(try StoreInspection(store).integrity() == "ok")
            daemon.signal(SIGTERM)
            #expect(await daemon.waitForExit(timeout: .seconds(5)) == 0)
        }
    }

    /// With a small rate limit and a reserve: a first sync stops at the
    /// reserve and waits for the reset while the other repositories' polls
    /// (free 304s) go on; the budget never falls below the reserve, and the
    /// walk resumes after the reset and completes.
    @Test func atTheReserveWalksWaitForTheResetAndPollsGoOn() async throws {
        var configuration = SimConfiguration()
        configuration.authenticatedLimit = 40
        // Long enough that the walk reaches the reserve inside one window even when the whole
        // suite loads both cores (with 8 s, a slow walk saw the window reset first: no hold).
        configuration.rateLimitWindow = .seconds(20)
        try await withRunning(startSimulator([("small", 40), ("other", 40), ("huge", 3000)], configuration: configuration)) {
            simulator in
            let daemon = try startDaemon(
                simulator, settings: "default_interval: 1s\nrate_limit_reserve: 20\ngit_bootstrap: false",  // a REST walk spends points
                repositories: ["acme/small", "acme/other", "acme/huge"])
            defer { daemon.stop() }
            #expect(try await waitUntil(timeout: .seconds(180)) { try mirrored(simulator, "huge") }, "\(daemon.log)")
            #expect(await waitUntil { lines(daemon.log, "info sync finished ", repository: "huge").count >= 1 }, "\(daemon.log)")
            let log = daemon.log.split(separator: "\n")
            let held = try #require(
                log.indices.first {
                    log[$0].contains("notice stopped at the rate-limit reserve; this repository waits") && mentions(log[$0], "huge")
                },
                "\(daemon.log)")
            let finished = try #require(log.indices.first { log[$0].contains("info sync finished ") && mentions(log[$0], "huge") })
            #expect(held < finished)
            let polls = log[held..<finished].filter {
                $0.contains("info sync finished ") && (mentions($0, "small") || mentions($0, "other"))
            }
            #expect(polls.count >= 2, "polls while huge waited for the reset: \(polls.count)\n\(daemon.log)")
            // A poll is never held back by the reserve (a 304 is free).
            let heldPolls = log.filter {
                $0.contains("stopped at the rate-limit reserve") && (mentions($0, "small") || mentions($0, "other"))
            }
            #expect(heldPolls.isEmpty, "\(heldPolls)")
            #expect(polls.allSatisfy { $0.contains(" sync.new_commits=0 ") && $0.contains(" sync.requests=1 ") })
            // Every rate limit the daemon saw kept the reserve; GitHub never had to refuse a request.
            let remaining = log.compactMap { line in
                line.split(separator: " ").first { $0.hasPrefix("rate.remaining=") }.flatMap { Int($0.dropFirst("rate.remaining=".count)) }
            }
            #expect(!remaining.isEmpty && remaining.allSatisfy { $0 >= 20 }, "\(remaining)")
            #expect(simulator.stats().errors == 0, "\(simulator.stats())")
            daemon.signal(SIGTERM)
            #expect(await daemon.waitForExit(timeout: .seconds(5)) == 0)
        }
    }
}
