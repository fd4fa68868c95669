import MirrorTestSupport
import Foundation
import SQLite
import Testing

/// Issue #3 acceptance 2: a first sync interrupted again and again — killed
/// at random pages and stopped by an exhausted rate limit — resumes every time,
/// ends exact, and costs at most 10% more list requests than an uninterrupted one.
@Suite struct ResumeTests {
    /// COMMITS_MIRROR_RESUME_COMMITS=100000 runs the full-size version (slow in debug builds).
    static let commits = ProcessInfo.processInfo.environment["COMMITS_MIRROR_RESUME_COMMITS"].flatMap(Int.init) ?? 40_000

    @Test func interruptedFirstSyncResumesAndStaysFrugal() async throws {
        let directory = try TemporaryDirectory()
        let db = directory.path("commits.sqlite")
        // 25 requests per run (the budget is refilled between runs through /_sim/reset-stats):
        // runs that are not killed are cut off by the primary limit, deterministically.
        let sim = try await SimulatorProcess.start(["--synthetic", "acme/big=\(Self.commits):21", "--authenticated-limit", "25"])
        var listRequests = 0
        defer { sim.stop() }
        var generator = SplitMix(seed: 42)
        var killed = 0, rateLimited = 0, runs = 0
        var finished = false

        while !finished {
            runs += 1
            #expect(runs < 200)
            if runs > 200 { break }
            let before = StoreInspection(db).commitCount()
            let process = try startSync(db: db, sim: sim)
            if killed < 10 && runs % 2 == 1 {
                // Kill after a random 1–15 pages of progress in this run (or when it exits by itself).
                let pages = Int(generator.next() % 15) + 1
                await waitUntil(timeout: .seconds(300), every: .milliseconds(5)) {
                    !process.isRunning || StoreInspection(db).commitCount() >= before + pages * 100
                }
                if process.isRunning {
                    process.signal(SIGKILL)
                    killed += 1
                }
            }
            if let status = await process.wait().exitStatus {
                switch status {
                case 0: finished = true
                case 75: rateLimited += 1
                default: Issue.record("sync exited \(status)")
                }
            }
            #expect(try StoreInspection(db).integrity() == "ok")
            #expect(StoreInspection(db).commitCount() % 100 == 0 || finished, "only whole pages are ever stored")
            let stats = try await sim.control("/_sim/stats")
            listRequests += try #require(stats["listRequests"] as? Int)
            try await sim.control("/_sim/reset-stats", method: "POST")
        }

        // How many kills land before the history is complete depends on timing; both
        // kinds of interruption must occur, at least ten in all.
        #expect(killed >= 5)
        #expect(rateLimited >= 1)
        #expect(killed + rateLimited >= 10)
        #expect(StoreInspection(db).commitCount() == Self.commits)
        let expected = Self.commits / 100 + (Self.commits % 100 == 0 ? 0 : 1)
        print(
            "resume: \(Self.commits) commits, \(killed) kills + \(rateLimited) rate-limit stops, \(listRequests) list requests for \(expected) pages"
        )
        #expect(Double(listRequests) <= 1.1 * Double(expected), "\(listRequests) list requests for \(expected) pages")
        let status = try await run("commitsctl", ["query", "--db", db, "-n", "1"])
        #expect(status.status == 0)
    }

    private func startSync(db: String, sim: SimulatorProcess) throws -> ChildProcess {
        try ChildProcess(
            // The REST walk is what resumes here; a first sync this long would otherwise read its history over git.
            Executables.path("commitsctl"), ["sync", "acme/big", "--db", db, "--api-url", sim.baseURL, "--no-git-bootstrap"],
            environment: ["GITHUB_TOKEN": "resume-test-token", "PATH": "/usr/bin:/bin"])
    }
}
