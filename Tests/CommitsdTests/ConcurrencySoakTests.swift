import MirrorTestSupport
import Foundation
import GitHubSim
import Synchronization
import Testing

/// Issue #6 "concurrency": for 10 s (60 s or more when COMMITS_MIRROR_SOAK_SECONDS
/// asks), `commitsd` mirrors two repositories whose
/// heads keep moving, a `commitsctl sync` loop mirrors a third (and now and
/// then collides with the daemon on one of its repositories), a `commitsctl
/// backup` copies the store mid-flight, and 8 loops of read commands run
/// against the same store. No error reaches a reader, no reader sees a count
/// go backwards, every commit a writer reported is in the final store, and the
/// final sets are exactly the simulator's reachable sets. Every process runs
/// with `SecretScan.token`; every log, output, argv and store byte is scanned.
@Suite struct ConcurrencySoakTests {
    /// The default suite runs a short soak; COMMITS_MIRROR_SOAK_SECONDS=60 (or more) runs the real one.
    static let seconds = ProcessInfo.processInfo.environment["COMMITS_MIRROR_SOAK_SECONDS"].flatMap(Int.init) ?? 10

    /// What the concurrent loops saw, for the assertions and the report.
    struct Tally: Sendable {
        var readerRuns = 0
        var readerFailures: [String] = []
        var regressions: [String] = []
        var syncRuns = 0
        var syncSkipped = 0
        var syncFailures: [String] = []
        /// Commits each commitsctl sync reported as new, per repository.
        var reportedNew: [String: Int] = [:]
        var backups: [String] = []
        var argv: [String] = []
        var outputs: [String] = []
    }

    final class Box: Sendable {
        let tally = Mutex(Tally())
    }

    @Test func daemonSyncAndEightReadersShareTheStore() async throws {
        let directory = try TemporaryDirectory()
        let store = directory.path("state/commits.sqlite")
        var configuration = SimConfiguration()
        configuration.validTokens = [SecretScan.token]
        configuration.authenticatedLimit = 1_000_000
        configuration.faults.delay = .milliseconds(5)
        let specs = [("alpha", 25_000), ("beta", 6_000), ("gamma", 15_000)]
        let simulator = try GitHubSimulator(
            configuration: configuration,
            repositories: specs.enumerated().map { index, spec in
                SimRepository(
                    owner: "acme", name: spec.0, id: 900 + index,
                    source: .synthetic(SyntheticSpec(commits: spec.1, authors: 80, mergeEvery: 6, seed: UInt64(31 + index))))
            })
        try await simulator.start()
        try await withRunning(simulator) { simulator in
            for (name, total) in specs { try simulator.moveHead(owner: "acme", name: name, back: total - 600) }
            func reachable(_ name: String) throws -> Set<String> { try simulator.reachableSHAs(owner: "acme", name: name) }

            let daemon = try DaemonProcess.mirroring(["acme/alpha", "acme/beta"], from: simulator, in: directory)
            defer { daemon.stop() }
            #expect(
                await waitUntil {
                    ["alpha", "beta"].allSatisfy { !StoreInspection(store).memberSHAsSoFar(of: "acme/\($0)").isEmpty }
                }, "\(daemon.log)")
            let daemonArgv = SecretScan.commandLine(of: daemon.pid) ?? ""
            let environment = ["GITHUB_TOKEN": SecretScan.token]
            let box = Box()
            // gamma is commitsctl's alone; its first sync happens before the readers ask for it.
            let initial = try await runObserved(
                "commitsctl", ["sync", "acme/gamma", "--db", store, "--api-url", simulator.baseURL],
                environment: environment)
            #expect(initial.result.status == 0, "\(initial.result.stderr)")
            box.tally.withLock {
                $0.reportedNew["acme/gamma"] =
                    Int(
                        initial.result.lines.last?.split(separator: ":").dropFirst().first?
                            .split(separator: " ").first ?? "") ?? -1_000_000
                $0.outputs.append(initial.result.stdout + initial.result.stderr)
                $0.argv.append(initial.argv)
            }
            let deadline = ContinuousClock.now + .seconds(Self.seconds)

            // The writer: new pushes every ~second, a commitsctl sync of gamma each time,
            // of beta every third time (commitsd's: synced or skipped, never an error),
            // and one online backup half-way.
            let writer = Task {
                await onThread { () -> Void in
                    var round = 0
                    var backedUp = false
                    let halfway = deadline - .seconds(Self.seconds / 2)
                    var generator = SystemRandomNumberGenerator()
                    while ContinuousClock.now < deadline {
                        round += 1
                        try? simulator.moveHead(owner: "acme", name: "alpha", forward: Int.random(in: 100...400, using: &generator))
                        try? simulator.moveHead(owner: "acme", name: "beta", forward: Int.random(in: 20...120, using: &generator))
                        try? simulator.moveHead(owner: "acme", name: "gamma", forward: Int.random(in: 100...300, using: &generator))
                        for name in round % 3 == 0 ? ["gamma", "beta"] : ["gamma"] {
                            guard
                                let observed = try? runObservedBlocking(
                                    "commitsctl",
                                    [
                                        "sync", "acme/\(name)", "--db", store, "--api-url", simulator.baseURL, "--log-level", "trace",
                                    ], environment: environment)
                            else { continue }
                            box.tally.withLock { tally in
                                tally.syncRuns += 1
                                tally.argv.append(observed.argv)
                                tally.outputs.append(observed.result.stdout + observed.result.stderr)
                                switch observed.result.status {
                                case 0:
                                    let summary = observed.result.lines.last ?? ""
                                    let added = summary.split(separator: ":").dropFirst().first?.split(separator: " ").first.flatMap {
                                        Int($0)
                                    }
                                    tally.reportedNew["acme/\(name)", default: 0] += added ?? 0
                                    if added == nil { tally.syncFailures.append("unreadable summary: \(summary)") }
                                case 75 where observed.result.stderr.contains("is being synced by another process (commitsd"):
                                    tally.syncSkipped += 1
                                default:
                                    tally.syncFailures.append("acme/\(name): exit \(observed.result.status): \(observed.result.stderr)")
                                }
                            }
                        }
                        if !backedUp, ContinuousClock.now >= halfway,
                            let copy = try? runObservedBlocking(
                                "commitsctl", ["backup", directory.path("mid-soak.sqlite"), "--db", store], environment: environment)
                        {
                            backedUp = true
                            box.tally.withLock {
                                $0.backups.append("exit \(copy.result.status): \(copy.result.stdout)\(copy.result.stderr)")
                                $0.outputs.append(copy.result.stdout + copy.result.stderr)
                            }
                        }
                        Thread.sleep(forTimeInterval: 0.7)
                    }
                }
            }

            // Eight readers, each cycling through the read commands.
            let commands: [[String]] = [
                ["query", "--repo", "acme/alpha", "-n", "50", "--format", "ndjson"],
                ["status", "--json"],
                ["query", "--author", "a", "-n", "20", "--format", "table"],
                ["query", "--grep", "fix", "-n", "20", "--format", "json"],
                ["authors", "--top", "5"],
                ["stats"],
                ["query", "--repo", "acme/gamma", "--no-merges", "--reverse", "-n", "5", "--format", "csv"],
                ["check"],
            ]
            let readers = (0..<8).map { reader in
                Task {
                    await onThread { () -> Void in
                        var index = reader
                        var lastCounts: [String: Int] = [:]
                        var pause = SplitMix(seed: UInt64(reader + 1))
                        while ContinuousClock.now < deadline {
                            // Paced (0.2–0.6 s between runs): eight loops always overlap, yet leave
                            // the 2 CI cores some room for the suites running beside this one.
                            Thread.sleep(forTimeInterval: 0.2 + Double(pause.next() % 400) / 1000)
                            let arguments = commands[index % commands.count] + ["--db", store]
                            index += 1
                            guard let observed = try? runObservedBlocking("commitsctl", arguments, environment: environment) else {
                                continue
                            }
                            let result = observed.result
                            // check exits 3 while a walk is pending: sound, not yet complete.
                            let ok = result.status == 0 || (arguments[0] == "check" && result.status == 3)
                            var regressions: [String] = []
                            if arguments[0] == "status", result.status == 0,
                                let rows = try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]]
                            {
                                for row in rows {
                                    guard let name = row["repository"] as? String, let commits = row["commits"] as? Int else { continue }
                                    if let last = lastCounts[name], commits < last { regressions.append("\(name): \(last) -> \(commits)") }
                                    lastCounts[name] = commits
                                }
                            }
                            box.tally.withLock { tally in
                                tally.readerRuns += 1
                                tally.argv.append(observed.argv)
                                tally.outputs.append(result.stdout + result.stderr)
                                tally.regressions += regressions
                                if !ok || !result.stderr.isEmpty {
                                    tally.readerFailures.append(
                                        "\(arguments.joined(separator: " ")): exit \(result.status): \(result.stderr)")
                                }
                            }
                        }
                    }
                }
            }
            await writer.value
            for reader in readers { await reader.value }

            // Pushes have stopped: commitsd catches up, stops cleanly; one last commitsctl sync of gamma.
            #expect(
                try await waitUntil(timeout: .seconds(90)) {
                    try ["alpha", "beta"].allSatisfy { StoreInspection(store).memberSHAsSoFar(of: "acme/\($0)") == (try reachable($0)) }
                }, "\(daemon.log.suffix(3000))")
            daemon.signal(SIGTERM)
            #expect(await daemon.waitForExit(timeout: .seconds(10)) == 0)
            let last = try await runObserved(
                "commitsctl", ["sync", "acme/gamma", "--db", store, "--api-url", simulator.baseURL],
                environment: environment)
            #expect(last.result.status == 0, "\(last.result.stderr)")

            let seen = box.tally.withLock { $0 }
            #expect(seen.readerFailures.isEmpty, "\(seen.readerFailures.prefix(5))")
            #expect(seen.regressions.isEmpty, "\(seen.regressions.prefix(5))")
            #expect(seen.syncFailures.isEmpty, "\(seen.syncFailures.prefix(5))")
            // At least one run per reader per 6 s (80 in the 60 s soak).
            #expect(seen.readerRuns >= 8 * max(1, Self.seconds / 6), "readers barely ran: \(seen.readerRuns)")
            #expect(seen.backups.count == 1 && seen.backups.first?.hasPrefix("exit 0: backed up") == true, "\(seen.backups)")

            // Exact final sets.
            for name in ["alpha", "beta", "gamma"] {
                #expect(StoreInspection(store).memberSHAsSoFar(of: "acme/\(name)") == (try reachable(name)), "acme/\(name)")
            }
            #expect(await onThread { (try? StoreInspection(store).integrity()) ?? "unreadable" } == "ok")
            let check = try await run("commitsctl", ["check", "--db", store])
            #expect(check.status == 0, "\(check.stdout)")

            // No write lost: every commit any writer reported new is in the final store, counted once.
            let daemonNew = Self.newCommitsLogged(daemon.log)
            var newGamma = seen.reportedNew["acme/gamma", default: 0]
            newGamma += Int(last.result.lines.last?.split(separator: ":").dropFirst().first?.split(separator: " ").first ?? "0") ?? 0
            #expect(daemonNew["acme/alpha", default: 0] == (try reachable("alpha")).count)
            #expect(daemonNew["acme/beta", default: 0] + seen.reportedNew["acme/beta", default: 0] == (try reachable("beta")).count)
            #expect(newGamma == (try reachable("gamma")).count)
            #expect(!daemon.log.contains(" error "), "\(daemon.log.split(separator: "\n").filter { $0.contains(" error ") }.prefix(3))")

            // The mid-soak copy is a sound store in its own right.
            let copy = directory.path("mid-soak.sqlite")
            #expect(await onThread { (try? StoreInspection(copy).integrity()) ?? "unreadable" } == "ok")
            let copyCheck = try await run("commitsctl", ["check", "--db", copy])
            #expect(copyCheck.status == 0 || copyCheck.status == 3, "\(copyCheck.stdout)")

            // The token: nowhere.
            var texts = [
                "commitsd log": daemon.log, "commitsd argv": daemonArgv, "last sync": last.result.stdout + last.result.stderr,
                "last sync argv": last.argv,
            ]
            for (index, output) in seen.outputs.enumerated() { texts["output \(index)"] = output }
            for (index, argv) in seen.argv.enumerated() { texts["argv \(index)"] = argv }
            #expect(SecretScan.leaks(in: texts).isEmpty)
            #expect(SecretScan.leaks(inStoreAt: store).isEmpty)
            #expect(SecretScan.leaks(inStoreAt: copy).isEmpty)
            #expect(daemon.log.contains(" trace ") || daemon.log.contains(" debug "), "the daemon logged at its most verbose")

            print(
                """
                concurrency soak (\(Self.seconds) s): \(seen.readerRuns) reader runs, 0 errors; \(seen.syncRuns) commitsctl syncs \
                (\(seen.syncSkipped) skipped while commitsd held the repository); final: alpha \(try reachable("alpha").count), \
                beta \(try reachable("beta").count), gamma \(try reachable("gamma").count) commits, exact; \
                commits reported new = commits stored for every repository
                """)
        }
    }

    /// Sums `sync.new_commits` of commitsd's "sync finished" lines, per repository.
    static func newCommitsLogged(_ log: String) -> [String: Int] {
        var totals: [String: Int] = [:]
        for line in log.split(separator: "\n") where line.contains(" sync finished ") {
            let fields = line.split(separator: " ")
            guard let repo = fields.first(where: { $0.hasPrefix("repo=") })?.dropFirst(5),
                let added = fields.first(where: { $0.hasPrefix("sync.new_commits=") }).flatMap({ Int($0.dropFirst(17)) })
            else { continue }
            totals[String(repo), default: 0] += added
        }
        return totals
    }
}
