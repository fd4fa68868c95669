import Foundation
import GitHubSim
import MirrorCore
import MirrorTestSupport
import Testing

/// Issue #12: a first sync killed while it stores a history read over git
/// leaves a closed history (parents are stored before children), and the next
/// run reads it over git again and stores exactly the rest. The kill lands
/// inside the storing on purpose: the sync waits once its first batch from git
/// is committed (`TestTimings.gitPauseSeconds`), and is killed there.
@Suite struct BootstrapKillTests {
    static let commits = 40_000
    /// Stored when the sync waits: the first REST page, then the first batch git delivered.
    static let storedAtPause = 100 + 1_000

    @Test func aKillWhileAGitHistoryIsStoredLeavesAClosedHistoryAndTheNextRunStoresExactlyTheRest() async throws {
        let directory = try TemporaryDirectory()
        let simulator = try await startKillTarget(name: "big", id: 4545, commits: Self.commits, seed: 8)
        try await withRunning(simulator) { simulator in
            func sync(_ db: String, name: String, environment: [String: String] = [:]) throws -> CapturedProcess {
                try .sync("big", db: db, simulator: simulator, environment: environment, logDirectory: directory.url, as: name)
            }
            let expected = try simulator.reachableSHAs(owner: "acme", name: "big")
            let db = directory.path("killed.sqlite")
            let killed = try sync(db, name: "killed", environment: [TestTimings.gitPauseSeconds: "3600"])
            let paused = await waitUntil(timeout: .seconds(120), every: .milliseconds(10)) {
                !killed.process.isRunning || StoreInspection(db).commitCount() >= Self.storedAtPause
            }
            #expect(paused, "\(killed.stderr)")
            killed.kill(SIGKILL)
            #expect(await onThread { killed.wait() } == nil, "killed while it waited, not finished: \(killed.stdout)")
            #expect(StoreInspection(db).commitCount() == Self.storedAtPause)
            // Only the first REST page's commits may wait for parents: what git stored is closed.
            #expect(StoreInspection(db).commitsWithMissingParents() <= 100)
            #expect(try StoreInspection(db).integrity() == "ok")

            simulator.resetStats()
            let resumed = try sync(db, name: "resumed")
            #expect(await onThread { resumed.wait() } == 0, "\(resumed.stderr)")
            let rest = Self.commits - Self.storedAtPause
            #expect(
                resumed.stdout.contains(": \(rest) new (\(rest) over git),"),
                "the resumed run read over git exactly what the killed one had not stored: \(resumed.stdout)")
            #expect(simulator.stats().listRequests <= 2, "the resumed run lists at most a page over REST")
            #expect(try StoreInspection(db).memberSHAs(of: "acme/big") == expected)
            #expect(StoreInspection(db).commitCount() == Self.commits)
            #expect(StoreInspection(db).commitsWithMissingParents() == 0)
            let check = try await run("commitsctl", ["check", "--db", db])
            #expect(check.status == 0, "\(check.stdout)\(check.stderr)")
        }
    }
}
