import MirrorTestSupport
import Foundation
import GitHubSim
import MirrorCore
import MirrorSQLite
import Testing

/// Issue #6 "crash safety": `commitsctl sync` is SIGKILLed at random moments
/// (seeded, so the schedule is reproducible) while new commits keep arriving.
/// After every kill the store opens, passes `PRAGMA integrity_check` and the
/// foreign-key check, still holds every commit the last finished run's summary
/// reported, holds nothing outside the branch's history, and `commitsctl check`
/// never calls it damaged; every run that finishes is exact, and so is the last.
@Suite struct CrashTests {
    /// COMMITS_MIRROR_CRASH_SEED / COMMITS_MIRROR_CRASH_KILLS replay or lengthen the schedule.
    static let seed = ProcessInfo.processInfo.environment["COMMITS_MIRROR_CRASH_SEED"].flatMap(UInt64.init) ?? 20_261_121
    static let killTarget = ProcessInfo.processInfo.environment["COMMITS_MIRROR_CRASH_KILLS"].flatMap(Int.init) ?? 24
    /// Half the kills land uniformly within this many milliseconds of the start
    /// (start-up, store open, head probe, the first fetches); the other half at a
    /// uniform moment within `afterPageWindow` ms of the run storing its first
    /// page (page fetches, page transactions, walk bookkeeping).
    static let startWindow = 350
    static let afterPageWindow = 200

    @Test func syncsKilledAtRandomMomentsLoseNothingReportedAndConverge() async throws {
        let directory = try TemporaryDirectory()
        let db = directory.path("commits.sqlite")
        var configuration = SimConfiguration()
        configuration.validTokens = [SecretScan.token]
        configuration.faults.delay = .milliseconds(10)
        let simulator = try GitHubSimulator(
            configuration: configuration,
            repositories: [
                SimRepository(
                    owner: "acme", name: "crash", id: 4242,
                    source: .synthetic(SyntheticSpec(commits: 40_000, authors: 60, mergeEvery: 6, seed: 99)))
            ])
        try await simulator.start()
        try await withRunning(simulator) { simulator in
            try simulator.moveHead(owner: "acme", name: "crash", back: 39_700)
            func reachable() throws -> Set<String> { try simulator.reachableSHAs(owner: "acme", name: "crash") }

            var random = SplitMix(seed: Self.seed)
            var reported: Set<String> = []
            var kills = 0, finished = 0, runs = 0
            var killedAfter: [String] = []  // ms after the start, or after the first page ("page+")
            var storedByKilled: [Int] = []  // commits the killed run had stored
            var captured: [String: String] = [:]
            let clock = ContinuousClock()

            while kills < Self.killTarget {
                runs += 1
                #expect(runs <= Self.killTarget * 3, "too few kills landed")
                if runs > Self.killTarget * 3 { break }
                // New pushes arrive between runs: 2 to 7 pages' worth.
                try simulator.moveHead(owner: "acme", name: "crash", forward: 200 + Int(random.next() % 500))
                let before = try StoreInspection(db).memberSHAs(of: "acme/crash")
                let sync = try CapturedProcess(
                    "commitsctl",
                    ["sync", "acme/crash", "--db", db, "--api-url", simulator.baseURL, "--log-level", "trace", "--no-git-bootstrap"],
                    environment: ["GITHUB_TOKEN": SecretScan.token], logDirectory: directory.url, name: "run-\(runs)")
                let started = clock.now
                // Every fourth run (the first included) is left to finish; the others die at a seeded moment.
                if runs % 4 != 1 {
                    let afterFirstPage = random.next() % 2 == 0
                    let moment = Int(random.next() % UInt64(afterFirstPage ? Self.afterPageWindow : Self.startWindow))
                    var from = started
                    if afterFirstPage {
                        await waitUntil(timeout: .seconds(60), every: .milliseconds(2)) {
                            !sync.process.isRunning || StoreInspection(db).membershipCount() > before.count
                        }
                        from = clock.now
                    }
                    // The seeded kill moment (the test's random input), cut short if the run ends first.
                    await waitUntil(timeout: .milliseconds(moment) - (clock.now - from), every: .milliseconds(1)) {
                        !sync.process.isRunning
                    }
                    if sync.process.isRunning {
                        captured["argv of run \(runs)"] = SecretScan.commandLine(of: sync.pid) ?? ""
                        sync.kill(SIGKILL)
                        kills += 1
                        killedAfter.append("\(afterFirstPage ? "page+" : "")\(moment)")
                    }
                }
                let status = await onThread { sync.wait() }
                captured["stdout of run \(runs)"] = sync.stdout
                captured["stderr of run \(runs)"] = sync.stderr

                // The store opens as the next run opens it, and is sound (checked off the
                // cooperative pool: an integrity check of a growing store takes a while).
                let (integrity, violations, after) = try await onThread {
                    _ = try MirrorStore(path: db)
                    return (
                        try StoreInspection(db).integrity(), try StoreInspection(db).foreignKeyViolations(),
                        try StoreInspection(db).memberSHAs(of: "acme/crash")
                    )
                }
                #expect(integrity == "ok", "run \(runs)")
                #expect(violations == 0, "run \(runs)")
                #expect(reported.isSubset(of: after), "run \(runs) lost \(reported.subtracting(after).count) reported commits")
                #expect(after.isSubset(of: try reachable()), "run \(runs) stored commits outside the history")
                let check = try await run("commitsctl", ["check", "--db", db])
                #expect(check.status == 0 || check.status == 3, "run \(runs): check says \(check.status): \(check.stdout)\(check.stderr)")

                if let status {
                    // It exited by itself: a success whose summary is the truth, and exact.
                    #expect(status == 0, "run \(runs): \(sync.stderr)")
                    let summary = sync.stdout.split(separator: "\n").last.map(String.init) ?? ""
                    let added = summary.split(separator: ":").dropFirst().first?
                        .split(separator: " ").first.flatMap { Int($0) }
                    #expect(added == after.count - before.count, "run \(runs): \(summary)")
                    #expect(after == (try reachable()), "run \(runs) finished inexact: \(summary)")
                    #expect(check.status == 0, "\(check.stdout)")
                    reported = after
                    finished += 1
                } else {
                    storedByKilled.append(after.count - before.count)
                }
            }

            // Converge: one more run, left alone.
            let last = try await run(
                "commitsctl",
                ["sync", "acme/crash", "--db", db, "--api-url", simulator.baseURL, "--log-level", "trace", "--no-git-bootstrap"],
                environment: ["GITHUB_TOKEN": SecretScan.token])
            #expect(last.status == 0, "\(last.stderr)")
            #expect(try StoreInspection(db).memberSHAs(of: "acme/crash") == (try reachable()))
            #expect(try await run("commitsctl", ["check", "--db", db]).status == 0)
            captured["stdout of the last run"] = last.stdout
            captured["stderr of the last run"] = last.stderr

            #expect(kills >= 20)
            #expect(SecretScan.leaks(in: captured).isEmpty)
            #expect(SecretScan.leaks(inStoreAt: db).isEmpty)
            #expect(captured.keys.contains { $0.hasPrefix("argv") })
            let midWalk = storedByKilled.filter { $0 > 0 }.count
            print(
                """
                crash harness (seed \(Self.seed)): \(kills) SIGKILLs survived in \(runs) runs (\(finished) finished on their own); \
                \(midWalk) kills landed after the run had stored pages, \(kills - midWalk) before its first page; \
                kill moments (ms after the start, or page+ms after the run's first page) \(killedAfter); \
                commits stored by killed runs \(storedByKilled); \
                final store \(try StoreInspection(db).memberSHAs(of: "acme/crash").count) commits, exact
                """)
        }
    }
}
