import MirrorTestSupport
import Foundation
import GitHubSim
import MirrorCore
import Testing

/// Issue #14: pages that arrive while the store is busy share one write
/// transaction. A SIGKILL while such a batch is open loses only the batch: the
/// next run resumes from the last committed page, and the pages fetched twice
/// are at most `SyncEngine.maximumPagesPerBatch` plus the one fetched ahead.
@Suite struct BatchKillTests {
    static let commits = 8_000
    /// Pages listed but not yet committed before the kill: more than a page in
    /// hand and one fetched ahead means a batch held two pages or more.
    static let openBatchMargin = 4

    @Test func aKillDuringAMultiPageBatchCostsAtMostTheBatchInPagesFetchedAgain() async throws {
        let directory = try TemporaryDirectory()
        let simulator = try await startKillTarget(name: "batch", id: 4343, commits: Self.commits, seed: 3)
        try await withRunning(simulator) { simulator in
            func sync(_ db: String, name: String) throws -> CapturedProcess {
                // Batches of REST pages are what a kill lands in; a first sync this long would
                // otherwise read its history over git.
                try .sync(
                    "batch", db: db, simulator: simulator, extra: ["--no-git-bootstrap"], logDirectory: directory.url, as: name)
            }
            // What one uninterrupted sync lists: the pages every resumed pair of runs must add up to.
            let reference = try sync(directory.path("reference.sqlite"), name: "reference")
            #expect(await onThread { reference.wait() } == 0, "\(reference.stderr)")
            let pagesOfOneSync = simulator.stats().listRequests

            var landed: (listedBeforeKill: Int, committedAtKill: Int)?
            for attempt in 1...5 where landed == nil {
                let db = directory.path("killed-\(attempt).sqlite")
                simulator.resetStats()
                let killed = try sync(db, name: "killed-\(attempt)")
                var listed = 0
                var committed = 0
                await waitUntil(timeout: .seconds(120), every: .milliseconds(1)) {
                    listed = simulator.stats().listRequests
                    committed = StoreInspection(db).committedWalkPages()
                    return !killed.process.isRunning || (committed > 0 && listed - committed >= Self.openBatchMargin)
                }
                killed.kill(SIGKILL)
                let status = await onThread { killed.wait() }
                guard status == nil else { continue }  // it finished first: try again
                let listedBeforeKill = simulator.stats().listRequests

                simulator.resetStats()
                let resumed = try sync(db, name: "resumed-\(attempt)")
                #expect(await onThread { resumed.wait() } == 0, "\(resumed.stderr)")
                let fetchedAgain = listedBeforeKill + simulator.stats().listRequests - pagesOfOneSync
                #expect(fetchedAgain <= SyncEngine.maximumPagesPerBatch + 1, "attempt \(attempt): \(fetchedAgain) pages fetched again")
                #expect(fetchedAgain >= 0)
                #expect(
                    try StoreInspection(db).memberSHAs(of: "acme/batch")
                        == (try simulator.reachableSHAs(owner: "acme", name: "batch")))
                #expect(try StoreInspection(db).integrity() == "ok")
                print(
                    """
                    batch kill, attempt \(attempt): killed with \(listed - committed) pages listed past the \(committed) \
                    committed; \(fetchedAgain) pages fetched again (bound \(SyncEngine.maximumPagesPerBatch + 1))
                    """)
                landed = (listedBeforeKill, committed)
            }
            #expect(landed != nil, "no kill landed while a batch of pages was open in 5 attempts")
        }
    }
}
