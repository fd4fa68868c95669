import Foundation
import GitHubSim
import MirrorCore
import MirrorTestSupport
import Testing

/// Issue #12: a first sync killed while it stores a history read over git
/// leaves a closed history (parents are stored before children), and the next
/// run reads it over git again and completes exactly.
@Suite struct BootstrapKillTests {
    static let commits = 40_000

    @Test func aKillWhileAGitHistoryIsStoredLeavesAClosedHistoryAndTheNextRunCompletesIt() async throws {
        let directory = try TemporaryDirectory()
        let simulator = try await startKillTarget(name: "big", id: 4545, commits: Self.commits, seed: 8)
        try await withRunning(simulator) { simulator in
            func sync(_ db: String, name: String) throws -> CapturedProcess {
                try .sync("big", db: db, simulator: simulator, logDirectory: directory.url, as: name)
            }
            let expected = try simulator.reachableSHAs(owner: "acme", name: "big")
            var landed = false
            for attempt in 1...5 where !landed {
                let db = directory.path("killed-\(attempt).sqlite")
                let killed = try sync(db, name: "killed-\(attempt)")
                var stored = 0
                // Past the first REST page, and short of the whole history: inside the git delivery.
                await waitUntil(timeout: .seconds(120), every: .milliseconds(1)) {
                    stored = StoreInspection(db).commitCount()
                    return !killed.process.isRunning || stored > 100
                }
                killed.kill(SIGKILL)
                guard await onThread({ killed.wait() }) == nil else { continue }  // it finished first
                stored = StoreInspection(db).commitCount()
                guard stored < Self.commits else { continue }

                // Only the first REST page's commits may wait for parents: what git stored is closed.
                #expect(StoreInspection(db).commitsWithMissingParents() <= 100, "attempt \(attempt)")
                #expect(try StoreInspection(db).integrity() == "ok")

                simulator.resetStats()
                let resumed = try sync(db, name: "resumed-\(attempt)")
                #expect(await onThread { resumed.wait() } == 0, "\(resumed.stderr)")
                #expect(resumed.stdout.contains("over git"), "the resumed run read the rest over git: \(resumed.stdout)")
                #expect(simulator.stats().listRequests <= 2, "the resumed run lists at most a page over REST")
                #expect(try StoreInspection(db).memberSHAs(of: "acme/big") == expected)
                #expect(StoreInspection(db).commitsWithMissingParents() == 0)
                print("bootstrap kill, attempt \(attempt): killed with \(stored) of \(Self.commits) commits stored")
                landed = true
            }
            #expect(landed, "no kill landed while a git history was being stored in 5 attempts")
        }
    }
}
