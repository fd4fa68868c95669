import Foundation
import GitHubSim
import MirrorCore
import MirrorTestSupport
import Testing

/// Pages that arrive while the store is busy share one write transaction. A
/// SIGKILL while such a batch is open loses only the batch: the store stays at
/// the last committed page, the next run resumes from there, and the pages
/// fetched twice are at most `SyncEngine.maximumPagesPerBatch` plus those
/// fetched ahead (the next page, and up to `SyncEngine.pagesAhead` after it,
/// each asked for as the one before had its response).
///
/// The open batch is made, not waited for: the sync holds its batches open
/// (`TestTimings.batchSeconds`, so only the page limit commits one), and
/// github-sim holds back one page of the second batch's pages, so the kill lands
/// while that batch is open however slowly a loaded machine runs.
@Suite struct BatchKillTests {
    /// The pages a first sync may have fetched past the page in hand (PrefetchedPage).
    static let pagesFetchedAhead = 1 + SyncEngine.pagesAhead
    /// The page github-sim holds back. A first sync asks for page M only while
    /// page M − `pagesFetchedAhead` is in hand, so once the page before that is
    /// stored: its request means the second batch holds two pages or more, and
    /// it numbers below the page that would fill that batch.
    static let heldPage = SyncEngine.maximumPagesPerBatch + 2 + pagesFetchedAhead + 1

    /// The test-only variables `sync` reads (a batch hold, `BootstrapKillTests`' git pause) are
    /// checked before the store is touched or a request sent.
    @Test(arguments: [(TestTimings.batchSeconds, "0.5"), (TestTimings.gitPauseSeconds, "-1")])
    func aTestTimingThatIsNoWholeNumberOfSecondsIsRefusedInOneLine(variable: String, value: String) async throws {
        let directory = try TemporaryDirectory()
        let db = directory.path("never.sqlite")
        let result = try await run(
            "commitsctl", ["sync", "acme/batch", "--db", db, "--api-url", "http://127.0.0.1:9"],
            environment: ["GITHUB_TOKEN": SecretScan.token, variable: value])
        #expect(result.status != 0)
        #expect(
            result.stderr
                == "commitsctl: error: $\(variable) must be a whole number of seconds from 1 to 86400, not \"\(value)\"; it is for tests: unset it\n",
            "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: db))
    }

    @Test func aKillDuringAMultiPageBatchCostsAtMostTheBatchInPagesFetchedAgain() async throws {
        #expect(Self.heldPage < 2 * SyncEngine.maximumPagesPerBatch)
        let directory = try TemporaryDirectory()
        let simulator = try await startKillTarget(name: "batch", id: 4343, commits: 3_000, seed: 3)
        try await withRunning(simulator) { simulator in
            func sync(_ db: String, name: String, environment: [String: String] = [:]) throws -> CapturedProcess {
                // Batches of REST pages are what a kill lands in; a first sync this long would
                // otherwise read its history over git.
                try .sync(
                    "batch", db: db, simulator: simulator, extra: ["--no-git-bootstrap"], environment: environment,
                    logDirectory: directory.url, as: name)
            }
            // What one uninterrupted sync lists: the pages the killed and the resumed run must add up to.
            let reference = try sync(directory.path("reference.sqlite"), name: "reference")
            #expect(await onThread { reference.wait() } == 0, "\(reference.stderr)")
            let pagesOfOneSync = simulator.stats().listRequests
            try #require(pagesOfOneSync > Self.heldPage)

            let db = directory.path("killed.sqlite")
            var faults = FaultPlan()
            faults.holdFrom = Self.heldPage
            simulator.setFaults(faults)
            simulator.resetStats()
            let killed = try sync(db, name: "killed", environment: [TestTimings.batchSeconds: "3600"])
            let reached = await waitUntil(timeout: .seconds(300), every: .milliseconds(20)) {
                !killed.process.isRunning
                    || (simulator.stats().listRequests >= Self.heldPage
                        && StoreInspection(db).committedWalkPages() >= SyncEngine.maximumPagesPerBatch)
            }
            try #require(reached && killed.process.isRunning, "\(killed.stderr)")
            killed.kill(SIGKILL)
            #expect(await onThread { killed.wait() } == nil, "the sync was killed, not finished")
            let listedBeforeKill = simulator.stats().listRequests
            // Only the first batch, whole: the second, open at the kill, left nothing.
            let committedAtKill = StoreInspection(db).committedWalkPages()
            #expect(committedAtKill == SyncEngine.maximumPagesPerBatch)
            #expect(try StoreInspection(db).integrity() == "ok")

            simulator.setFaults(FaultPlan())
            simulator.resetStats()
            let resumed = try sync(db, name: "resumed")
            #expect(await onThread { resumed.wait() } == 0, "\(resumed.stderr)")
            // The resumed run starts at the page after the last committed one: nothing skipped, nothing twice.
            #expect(simulator.stats().listRequests == pagesOfOneSync - committedAtKill)
            let fetchedAgain = listedBeforeKill + simulator.stats().listRequests - pagesOfOneSync
            #expect(fetchedAgain >= 2 && fetchedAgain <= SyncEngine.maximumPagesPerBatch + Self.pagesFetchedAhead)
            #expect(
                try StoreInspection(db).memberSHAs(of: "acme/batch") == (try simulator.reachableSHAs(owner: "acme", name: "batch")))
            #expect(try StoreInspection(db).integrity() == "ok")
            #expect(try StoreInspection(db).foreignKeyViolations() == 0)
        }
    }
}
