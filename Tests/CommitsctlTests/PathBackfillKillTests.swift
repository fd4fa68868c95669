import Foundation
import MirrorCore
import MirrorTestSupport
import Testing

/// A backfill of changed paths killed while it stores them, and resumed: the
/// killed run committed whole batches of commits with their changes, the
/// resumed run stores exactly the rest, nothing else of the store changes, and
/// the result equals a backfill never interrupted. The kill lands inside the
/// storing on purpose: the run waits once its first batch is committed
/// (`TestTimings.gitPauseSeconds`), or is killed at a moment drawn at random.
@Suite(.enabled(if: PackagePaths.hasAlamofire, "needs ../shared/datasets/alamofire.bundle"))
struct PathBackfillKillTests {
    static let commits = 1678
    /// Commits a backfill hands to the store at a time (`GitBootstrap.commitsPerBatch`).
    static let batch = 1_000

    @Test(arguments: [0, 1, 2])
    func aBackfillKilledAndResumedIsExactAndChangesNothingElse(attempt: Int) async throws {
        let directory = try TemporaryDirectory()
        let repository = directory.path("alamofire.git")
        _ = try await runProgram("/usr/bin/git", ["clone", "--quiet", "--bare", PackagePaths.alamofireBundle, repository])
        let sim = try await SimulatorProcess.start(["--git-repository", "Alamofire/Alamofire=\(repository)"])
        defer { sim.stop() }
        let environment = ["GITHUB_TOKEN": "test-token"]
        func sync(_ db: String, _ extra: [String] = []) async throws -> ProcessResult {
            try await run(
                "commitsctl", ["sync", "Alamofire/Alamofire", "--db", db, "--api-url", sim.baseURL] + extra, environment: environment)
        }
        // The same history backfilled without a kill, to compare with.
        let whole = directory.path("whole.sqlite")
        #expect(try await sync(whole).status == 0)
        #expect(try await sync(whole, ["--paths"]).status == 0)
        let expected = try StoreInspection(whole).changeFacts()
        #expect(StoreInspection(whole).commitsWithChanges() == Self.commits)

        let db = directory.path("killed.sqlite")
        #expect(try await sync(db).status == 0)
        #expect(StoreInspection(db).commitsWithChanges() == 0, "a history read over REST has no paths")
        let before = try StoreInspection(db).commitFacts(of: "Alamofire/Alamofire")
        let pauses = attempt == 0
        let killed = try CapturedProcess(
            "commitsctl", ["sync", "Alamofire/Alamofire", "--db", db, "--api-url", sim.baseURL, "--paths"],
            environment: environment.merging(pauses ? [TestTimings.gitPauseSeconds: "3600"] : [:]) { $1 },
            logDirectory: directory.url, name: "killed-\(attempt)")
        if pauses {
            let paused = await waitUntil(timeout: .seconds(120), every: .milliseconds(10)) {
                !killed.process.isRunning || StoreInspection(db).commitsWithChanges() >= Self.batch
            }
            #expect(paused, "\(killed.stderr)")
        } else {
            try await Task.sleep(for: .milliseconds(Int.random(in: 50...900)))
        }
        killed.kill(SIGKILL)
        _ = await onThread { killed.wait() }
        let stored = StoreInspection(db).commitsWithChanges()
        if pauses { #expect(stored == Self.batch, "the first batch, committed whole") }
        #expect(stored % Self.batch == 0 || stored == Self.commits, "whole batches only: \(stored)")
        #expect(try StoreInspection(db).integrity() == "ok")

        let resumed = try await sync(db, ["--paths"])
        #expect(resumed.status == 0, "\(resumed.stderr)")
        if stored < Self.commits {
            #expect(resumed.stdout.contains(", paths of \(Self.commits - stored) commits read, "), "\(resumed.stdout)")
        }
        #expect(try StoreInspection(db).changeFacts() == expected, "exactly the uninterrupted backfill's changes")
        #expect(try StoreInspection(db).commitFacts(of: "Alamofire/Alamofire") == before, "nothing else re-stored")
        let check = try await run("commitsctl", ["check", "--db", db])
        #expect(check.status == 0, "\(check.stdout)\(check.stderr)")
    }
}
