import MirrorTestSupport
import Foundation
import SQLite
import Testing

/// `commitsctl sync` and `query` as processes against a `github-sim` process.
@Suite struct SyncCommandTests {
    let directory: TemporaryDirectory
    init() throws { directory = try TemporaryDirectory() }
    var db: String { directory.path("commits.sqlite") }

    func sync(
        _ repository: String, _ sim: SimulatorProcess, extra: [String] = [],
        token: String? = "test-token"
    ) async throws -> ProcessResult {
        try await run(
            "commitsctl", ["sync", repository, "--db", db, "--api-url", sim.baseURL] + extra,
            environment: token.map { ["GITHUB_TOKEN": $0] } ?? [:])
    }

    @Test(.enabled(if: PackagePaths.hasDataset, "../shared/datasets not present: skipping the swift-evolution acceptance run"))
    func swiftEvolutionAcceptance() async throws {
        let sim = try await SimulatorProcess.start(["--dataset", "swiftlang/swift-evolution=\(PackagePaths.swiftEvolutionDataset)"])
        defer { sim.stop() }
        let first = try await sync("swiftlang/swift-evolution", sim)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout.hasPrefix("swiftlang/swift-evolution@main: 7807 new, 0 updated"))

        let query = try await run("commitsctl", ["query", "--author", "Joe Groff", "--limit", "1000", "--db", db])
        #expect(query.status == 0)
        #expect(query.lines.count == 324)
        #expect(query.lines.allSatisfy { $0.contains("Joe Groff") })

        _ = try await sim.control("/_sim/reset-stats", method: "POST")
        let second = try await sync("swiftlang/swift-evolution", sim)
        #expect(second.status == 0)
        // The head and the tag listing, each answered 304.
        #expect(second.stdout.contains(": 0 new, 0 updated, 2 requests (2 not modified)"))
        let stats = try await sim.control("/_sim/stats")
        #expect(stats["requests"] as? Int == 2)
        #expect(stats["notModified"] as? Int == 2)
        #expect(stats["ok"] as? Int == 0)
    }

    @Test func syntheticSyncThenQuery() async throws {
        let sim = try await SimulatorProcess.start(["--synthetic", "acme/widgets=2500:11"])
        defer { sim.stop() }
        let result = try await sync("acme/widgets", sim, extra: ["--no-git-bootstrap"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.hasPrefix("acme/widgets@main: 2500 new, 0 updated, 28 requests"), "\(result.stdout)")
        let all = try await run("commitsctl", ["query", "--db", db])
        #expect(all.lines.count == 2500)
        let limited = try await run("commitsctl", ["query", "--db", db, "-n", "3"])
        #expect(limited.lines.count == 3)
        // oneline: short sha, date, author, subject
        let fields = limited.lines[0].split(separator: " ", maxSplits: 2)
        #expect(fields[0].count == 7)
        #expect(fields[1].count == 10)
    }

    /// Issue #12: a long first sync reads its history over git by default and says
    /// so; the REST requests are the lookup, the head probe, the first page and the tag listing.
    @Test func aLongFirstSyncSaysWhatCameOverGit() async throws {
        let sim = try await SimulatorProcess.start(["--synthetic", "acme/widgets=2500:11"])
        defer { sim.stop() }
        let result = try await sync("acme/widgets", sim)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.hasPrefix("acme/widgets@main: 2500 new (2400 over git), 0 updated, 4 requests, 3 git requests"))
        let all = try await run("commitsctl", ["query", "--db", db])
        #expect(all.lines.count == 2500)
    }

    /// Issue #2 acceptance 3: a sync killed between pages leaves a sound store
    /// holding whole pages only; the next run completes it exactly.
    @Test func killedSyncLeavesASoundStoreAndResumes() async throws {
        let sim = try await SimulatorProcess.start(["--synthetic", "acme/widgets=3000:5"])
        defer { sim.stop() }
        _ = try await sim.control("/_sim/faults", method: "POST", body: #"{"delayMilliseconds": 60}"#)

        let process = try ChildProcess(
            Executables.path("commitsctl"), ["sync", "acme/widgets", "--db", db, "--api-url", sim.baseURL, "--no-git-bootstrap"],
            environment: ["GITHUB_TOKEN": "test-token", "PATH": "/usr/bin:/bin"])
        // Wait until a few pages are in, then kill without warning. The watch runs on
        // its own thread: a busy cooperative pool must not let the sync finish unseen.
        let db = self.db
        await onThread {
            waitUntilBlocking(timeout: .seconds(60)) { StoreInspection(db).commitCount() >= 500 }
            process.signal(SIGKILL)
        }
        #expect(await process.wait() == .signalled(SIGKILL))

        let store = StoreInspection(db)
        #expect(try store.integrity() == "ok")
        let afterKill = store.commitCount()
        #expect(afterKill >= 500 && afterKill < 3000)
        #expect(afterKill % 100 == 0, "pages are stored whole or not at all")

        _ = try await sim.control("/_sim/faults", method: "POST", body: "{}")
        let resumed = try await sync("acme/widgets", sim)
        #expect(resumed.status == 0, "\(resumed.stderr)")
        #expect(resumed.stdout.hasPrefix("acme/widgets@main: \(3000 - afterKill) new"))
        #expect(store.commitCount() == 3000)
    }
}
