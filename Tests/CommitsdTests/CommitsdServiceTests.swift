import MirrorTestSupport
import Foundation
import GitHubSim
import MirrorCore
import SQLite
import Testing

/// `commitsd` as a process against github-sim: mirroring, picking up new
/// commits, stopping cleanly, reloading, and sharing the store with commitsctl.
@Suite(.serialized) struct CommitsdServiceTests {
    let directory: TemporaryDirectory
    init() throws { directory = try TemporaryDirectory() }
    var store: String { directory.path("state/commits.sqlite") }

    static let token = "sekrit-test-token-4711"

    func writeConfig(
        _ simulator: GitHubSimulator, repositories: [String], interval: String = "2s",
        extra: String = "", name: String = "config.yaml"
    ) throws -> String {
        try directory.write(
            name,
            """
            store: state/commits.sqlite
            api_url: \(simulator.baseURL)
            default_interval: \(interval)
            \(extra)
            repositories:
            \(repositories.map { "  - \($0)" }.joined(separator: "\n"))

            """)
    }

    func startDaemon(_ config: String, extraArguments: [String] = [], environment: [String: String] = [:]) throws -> DaemonProcess {
        try DaemonProcess(
            ["--config", config] + extraArguments,
            environment: ["GITHUB_TOKEN": Self.token].merging(environment) { _, new in new },
            logPath: directory.path("commitsd-\(UUID().uuidString.prefix(4)).log"))
    }

    func mirrored(_ simulator: GitHubSimulator, _ names: [String]) throws -> Bool {
        try names.allSatisfy { name in
            StoreInspection(store).memberSHAsSoFar(of: "acme/\(name)") == (try simulator.reachableSHAs(owner: "acme", name: name))
        }
    }

    /// Issue #4 acceptance 1.
    @Test func mirrorsThreeRepositoriesFollowsNewCommitsAndStopsCleanly() async throws {
        let names = ["alpha", "beta", "gamma"]
        try await withRunning(startSimulator([("alpha", 450), ("beta", 260), ("gamma", 330)])) { simulator in
            for (name, back) in zip(names, [30, 12, 7]) { try simulator.moveHead(owner: "acme", name: name, back: back) }
            let config = try writeConfig(simulator, repositories: names.map { "acme/\($0)" })

            let daemon = try startDaemon(config, extraArguments: ["--log-level", "trace"])
            defer { daemon.stop() }
            #expect(try await waitUntil { try mirrored(simulator, names) }, "\(daemon.log)")

            // New pushes: the first poll of each repository that starts after the push
            // sees its new head. Counted, not timed: only a poll already in flight at
            // the push may still say "unchanged", so at most one such line comes
            // between the push and "head moved" (a wall clock would measure the load).
            // (Polls that find nothing new say so, in the form counted below.)
            #expect(
                await waitUntil {
                    daemon.log.split(separator: "\n").contains {
                        $0.contains(" debug branch head unchanged ") && $0.hasSuffix("repo=acme/gamma")
                    }
                },
                "\(daemon.log)")
            for (name, forward) in zip(names, [30, 12, 7]) { try simulator.moveHead(owner: "acme", name: name, forward: forward) }
            let moved = Date()
            #expect(try await waitUntil(timeout: .seconds(15)) { try mirrored(simulator, names) }, "\(daemon.log)")
            let timestamps = ISO8601DateFormatter()
            timestamps.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
            for name in names {
                // "2026-…Z info branch head moved branch=main head.new=… head.old=… repo=acme/alpha"
                let events = daemon.log.split(separator: "\n")
                    .filter { $0.hasSuffix("repo=acme/\(name)") }
                    .filter { timestamps.date(from: String($0.prefix { $0 != " " })).map { $0 > moved } ?? false }
                let seen = try #require(
                    events.firstIndex { $0.contains(" info branch head moved ") }, "no new head seen for acme/\(name)")
                let missed = events[..<seen].filter { $0.contains(" debug branch head unchanged ") }
                #expect(missed.count <= 1, "acme/\(name): polls after the push that missed it: \(missed)")
            }

            daemon.signal(SIGTERM)
            let stopping = ContinuousClock.now
            let status = await daemon.waitForExit(timeout: .seconds(5))
            #expect(status == 0, "\(daemon.log)")
            #expect(daemon.exitSeenAt.map { $0 - stopping < .seconds(5) } == true)
            #expect(try StoreInspection(store).integrity() == "ok")

            let log = daemon.log
            #expect(!log.contains(Self.token), "the token must never be logged, at any level")
            #expect(log.contains("info ready "))
            #expect(log.contains("info sync finished "))
            #expect(log.contains("repo=acme/beta"))
            #expect(log.contains(" sync.new_commits="))
            #expect(
                log.split(separator: "\n").contains { $0.contains("repo=acme/beta") && $0.contains("head.old=") },
                "the moved head is logged")
            #expect(log.contains("rate.remaining="))
            for line in log.split(separator: "\n") {
                // One line per event: a timestamp, a level, then the message and key=value pairs.
                let fields = line.split(separator: " ", maxSplits: 2)
                #expect(
                    fields.count == 3 && ["trace", "debug", "info", "notice", "warning", "error", "critical"].contains(String(fields[1])),
                    "\(line)")
            }
        }
    }

    /// SIGTERM during a long walk: the open page commits or rolls back, the
    /// process exits 0 within seconds, and the next start resumes exactly.
    @Test func sigtermMidWalkStopsAtAPageBoundaryAndResumes() async throws {
        try await withRunning(startSimulator([("big", 3000)])) { simulator in
            // The sixth list request (the head probe, then pages) and every later one are held
            // until the plan is replaced: the walk is certainly inside its first step of ten pages
            // (not paused between steps), waiting for its fifth page, when SIGTERM lands.
            var faults = FaultPlan()
            faults.holdFrom = 6
            simulator.setFaults(faults)
            // A REST walk to stop mid-way: a first sync this long would otherwise read its history over git.
            let config = try writeConfig(simulator, repositories: ["acme/big"], interval: "1h", extra: "git_bootstrap: false")

            let daemon = try startDaemon(config)
            defer { daemon.stop() }
            #expect(
                await waitUntil(timeout: .seconds(120)) {
                    simulator.stats().listRequests >= 6 && StoreInspection(store).memberSHAsSoFar(of: "acme/big").count >= 400
                }, "\(daemon.log)")
            daemon.signal(SIGTERM)
            // Within seconds on a quiet machine; the bound allows for a loaded one.
            let status = await daemon.waitForExit(timeout: .seconds(30))
            #expect(status == 0, "\(daemon.log)")
            #expect(try StoreInspection(store).integrity() == "ok")
            let stored = StoreInspection(store).memberSHAsSoFar(of: "acme/big").count
            #expect(stored < 3000 && stored % 100 == 0, "whole pages only: \(stored)")
            #expect(daemon.log.contains("sync interrupted by shutdown at a page boundary"))

            let interrupted = try await run("commitsctl", ["status", "--db", store, "--json"])
            let interruptedErrors = (try JSONSerialization.jsonObject(with: Data(interrupted.stdout.utf8)) as? [[String: Any]] ?? [])
                .compactMap { $0["last_error"] as? String }
            #expect(interruptedErrors.contains("interrupted at a page boundary; resumes on the next run"), "\(interrupted.stdout)")

            simulator.setFaults(FaultPlan())
            let restarted = try startDaemon(config)
            defer { restarted.stop() }
            #expect(try await waitUntil(timeout: .seconds(120)) { try mirrored(simulator, ["big"]) }, "\(restarted.log)")
            #expect(restarted.log.contains("resuming interrupted walk"))
            restarted.signal(SIGINT)
            #expect(await restarted.waitForExit(timeout: .seconds(30)) == 0)
        }
    }

    /// A walk that reaches `rate_limit_reserve` stops at a page boundary and
    /// waits for the reset, and so does a first sync (its lookup is not a free
    /// conditional request); `CommitsdPollingTests` shows the polls going on.
    @Test func rateLimitReserveStopsAWalkAtAPageBoundary() async throws {
        try await withRunning(startSimulator([("big", 3000), ("small", 10)])) { simulator in
            let config = try writeConfig(
                simulator, repositories: ["acme/big", "acme/small"], interval: "1s",
                extra: "rate_limit_reserve: 4990\ngit_bootstrap: false")  // the reserve stops a REST walk
            let daemon = try startDaemon(config)
            defer { daemon.stop() }
            #expect(
                await waitUntil(timeout: .seconds(10)) {
                    daemon.log.contains(
                        "notice stopped at the rate-limit reserve; this repository waits for the reset, polls of the others go on ")
                }, "\(daemon.log)")
            let stored = StoreInspection(store).memberSHAsSoFar(of: "acme/big").count
            #expect(stored > 0 && stored < 3000 && stored % 100 == 0, "\(stored)")
            #expect(StoreInspection(store).memberSHAsSoFar(of: "acme/small").isEmpty, "nothing starts while paused")
            let status = try await run("commitsctl", ["status", "--db", store, "--json"])
            let statusErrors = (try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [[String: Any]] ?? [])
                .compactMap { $0["last_error"] as? String }
            #expect(statusErrors.contains("stopped at the rate-limit reserve (4990); resumes after the reset"), "\(status.stdout)")
            // Longer than the 1 s interval: a sync would have started in this window.
            #expect(
                await staysTrue(for: .seconds(1.5)) {
                    StoreInspection(store).memberSHAsSoFar(of: "acme/big").count == stored
                }, "still paused")
            daemon.signal(SIGTERM)
            #expect(await daemon.waitForExit(timeout: .seconds(5)) == 0)
        }
    }

    /// Issue #4 acceptance 3: commitsctl sync while commitsd is mid-sync.
    @Test func commitsctlSyncWhileCommitsdIsMidSync() async throws {
        try await withRunning(startSimulator([("big", 3000), ("small", 200)])) { simulator in
            // big's fifth list request (its head probe, then pages: inside the walk's first step
            // of ten pages) is held back until both commands below are done: commitsd holds big
            // meanwhile, however loaded the machine. small's requests are answered.
            var faults = FaultPlan()
            faults.holdFrom = 5
            faults.holdRepository = 1001
            simulator.setFaults(faults)
            // A long REST walk to overlap with: a first sync of big would otherwise read it over git.
            let config = try writeConfig(
                simulator, repositories: ["acme/big", "acme/small"], interval: "1h", extra: "git_bootstrap: false")

            let daemon = try startDaemon(config)
            defer { daemon.stop() }
            #expect(await waitUntil { StoreInspection(store).memberSHAsSoFar(of: "acme/big").count >= 200 }, "\(daemon.log)")

            // The repository commitsd is syncing: skipped at once, with who holds it.
            let same = try await run(
                "commitsctl", ["sync", "acme/big", "--db", store, "--api-url", simulator.baseURL],
                environment: ["GITHUB_TOKEN": "test-token"])
            #expect(same.status == 75, "\(same.stderr)")
            #expect(
                same.stderr
                    == "commitsctl: error: acme/big is being synced by another process (commitsd (pid \(daemon.pid))) right now; skipped it, try again when that finishes\n"
            )

            // Cron style, while commitsd keeps writing pages: small is synced, big skipped.
            let all = try await run("commitsctl", ["sync", "--config", config], environment: ["GITHUB_TOKEN": "test-token"])
            #expect(all.status == 75, "\(all.stderr)")
            #expect(all.stdout.hasPrefix("acme/small@main: 200 new"), "\(all.stdout)")
            #expect(all.stderr.contains("commitsctl: warning: acme/big is being synced by another process (commitsd"))
            for output in [same.stderr, all.stderr, all.stdout, daemon.log] {
                #expect(!output.lowercased().contains("locked"), "\(output)")
            }
            simulator.setFaults(FaultPlan())

            #expect(try await waitUntil { try mirrored(simulator, ["big", "small"]) }, "\(daemon.log)")
            daemon.signal(SIGTERM)
            #expect(await daemon.waitForExit(timeout: .seconds(5)) == 0)
            #expect(try StoreInspection(store).integrity() == "ok")
            let status = try await run("commitsctl", ["status", "--db", store])
            #expect(status.lines.count == 3)
            #expect(status.lines.dropFirst().allSatisfy { $0.contains(" yes ") }, "\(status.stdout)")
        }
    }

    @Test func sighupReloadsAndABadFileKeepsTheRunningConfiguration() async throws {
        try await withRunning(startSimulator([("alpha", 120), ("beta", 80)])) { simulator in
            let config = try writeConfig(simulator, repositories: ["acme/alpha"], interval: "1s")
            let daemon = try startDaemon(config)
            defer { daemon.stop() }
            #expect(try await waitUntil { try mirrored(simulator, ["alpha"]) }, "\(daemon.log)")

            _ = try writeConfig(simulator, repositories: ["acme/alpha"], interval: "1s", extra: "intervall: 5s")
            daemon.signal(SIGHUP)
            #expect(await waitUntil(timeout: .seconds(5)) { daemon.log.contains("configuration reload failed") }, "\(daemon.log)")
            #expect(
                daemon.log.contains(
                    "error configuration reload failed; keeping the running configuration error=\"\(config):4: intervall: unknown key; expected one of store, api_url, token_file, github_app, repositories, default_interval, min_interval, max_interval, rate_limit_reserve, log_level, mailmap, metrics_listen, webhook_listen, webhook_secret_file, include_forks, include_archived, git_bootstrap, paths, tags, pull_requests, name, lease_duration, request_timeout\""
                ), "\(daemon.log)")
            #expect(await staysTrue(for: .milliseconds(1500)) { daemon.process.isRunning })

            _ = try writeConfig(simulator, repositories: ["acme/alpha", "name: acme/beta\n    interval: 1s"], interval: "2s")
            daemon.signal(SIGHUP)
            #expect(try await waitUntil(timeout: .seconds(10)) { try mirrored(simulator, ["alpha", "beta"]) }, "\(daemon.log)")
            #expect(daemon.log.contains("notice configuration changed config.change=\"default_interval: 1s -> 2s\""), "\(daemon.log)")
            #expect(daemon.log.contains("notice configuration changed config.change=\"repository added: acme/beta\""))

            daemon.signal(SIGTERM)
            #expect(await daemon.waitForExit(timeout: .seconds(5)) == 0)
        }
    }
}
