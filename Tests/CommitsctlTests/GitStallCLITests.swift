import Foundation
import GitHubSim
import MirrorTestSupport
import Testing

/// Issue #25, item 3, through the real `commitsctl sync`: a git server that keeps
/// the fetch alive (progress forever, or the pack a byte every half second)
/// used to hold a first sync until the 30-minute whole-fetch timeout. Now the
/// pack's pace ends it within seconds: one warning line, the walk goes on over
/// REST to the exact history, exit 0, what was stored before untouched, memory
/// bounded, and the token nowhere.
@Suite struct GitStallCLITests {
    /// 30 pages: a first sync that reads all but the first over git.
    static let commits = 3_000

    /// The reasons each fault's one warning line may give. Endless progress
    /// normally trips the progress bound (over 200 messages a window; the
    /// simulator sends one every 50 ms), but on a loaded machine the simulator
    /// may send fewer, and then the same window's pack bound (no pack bytes)
    /// ends the fetch first: a right answer too. GitFetchPaceTests test each
    /// bound on its own.
    static let reasons: [GitFault: [String]] = [
        .endlessProgress: [
            "the git server sends the pack too slowly: over 200 progress messages in 15 s",
            "the git server sends the pack too slowly: 12 bytes of pack in 15 s, fewer than the 16384 required",
        ],
        .trickledPack: ["the git server sends the pack too slowly: "],
        .echoedErrorBand: ["the git server reported an error: error: github-sim: failed for Basic [REDACTED] (x-access-token:[REDACTED])"],
    ]

    /// The stalls, and (for the same harness) a server whose error band echoes the credentials it was sent.
    @Test(arguments: [GitFault.endlessProgress, .trickledPack, .echoedErrorBand])
    func aGitServerThatKeepsTheFetchAliveIsCutShortAndTheSyncCompletesOverREST(_ fault: GitFault) async throws {
        let directory = try TemporaryDirectory()
        var configuration = SimConfiguration()
        configuration.validTokens = [SecretScan.token]
        let simulator = try await startSimulator([("kept", 150), ("stalled", Self.commits)], configuration: configuration)
        try await withRunning(simulator) { simulator in
            let db = directory.path("stall.sqlite")
            // At the default level (errors) a fallback to REST is silent: the sync succeeds.
            func sync(_ name: String, as processName: String) throws -> CapturedProcess {
                try .sync(
                    name, db: db, simulator: simulator, extra: ["--log-level", "warning"], logDirectory: directory.url,
                    as: processName)
            }
            let first = try sync("kept", as: "kept")
            #expect(await onThread { first.wait() } == 0, "\(first.stderr)")
            let kept = try StoreInspection(db).commitFacts(of: "acme/kept")

            var faults = FaultPlan()
            faults.git = fault
            simulator.setFaults(faults)
            let started = ContinuousClock.now
            let stalled = try sync("stalled", as: "stalled")
            var fellBackAt: ContinuousClock.Instant?
            let ended = await waitUntil(timeout: .seconds(300), every: .milliseconds(100)) {
                if fellBackAt == nil, stalled.stderr.contains("history not read over git") { fellBackAt = .now }
                return !stalled.process.isRunning
            }
            if !ended { stalled.kill() }
            #expect(ended, "still running after 300 s")
            #expect(await onThread { stalled.wait() } == 0, "\(stalled.stderr)")
            // The production bounds (200 progress messages a 15 s window, 16 KiB of pack per window)
            // end the fetch in 10–15 s; generous for a loaded machine, far from the 30-minute timeout.
            let stall = (fellBackAt ?? .now) - started
            #expect(stall < .seconds(120), "\(stall)")
            // Sampled by ChildProcess while it ran (VmHWM).
            let peakKiB = stalled.process.peakResidentKiB ?? 0
            #expect(peakKiB < 150 << 10, "peak resident \(peakKiB) KiB")
            #expect(simulator.stats().gitRequests == 3, "one fetch, not retried")

            let lines = stalled.stderr.split(separator: "\n")
            #expect(lines.count == 1, "one line on stderr: \(stalled.stderr)")
            #expect(
                lines.allSatisfy { line in
                    line.contains("history not read over git; listing it over REST") && Self.reasons[fault]!.contains { line.contains($0) }
                },
                "\(stalled.stderr)")
            // Nor the credentials as sent (base64 of x-access-token:TOKEN), which an echo would carry.
            let sent = Data("x-access-token:\(SecretScan.token)".utf8).base64EncodedString()
            #expect(!stalled.stderr.contains(sent) && !stalled.stdout.contains(sent))
            #expect(stalled.stdout.contains("\(Self.commits) new"), "\(stalled.stdout)")

            #expect(try StoreInspection(db).memberSHAs(of: "acme/stalled") == (try simulator.reachableSHAs(owner: "acme", name: "stalled")))
            #expect(try StoreInspection(db).commitFacts(of: "acme/kept") == kept, "what was stored before is unchanged")
            #expect(StoreInspection(db).commitsWithMissingParents() == 0)
            #expect(try StoreInspection(db).integrity() == "ok")

            // Sane again: the next sync is two free 304s (the head, the tags), and the history stays exact.
            simulator.setFaults(FaultPlan())
            simulator.resetStats()
            let again = try sync("stalled", as: "again")
            #expect(await onThread { again.wait() } == 0, "\(again.stderr)")
            #expect(simulator.stats().requests == 2 && simulator.stats().notModified == 2 && simulator.stats().gitRequests == 0)
            #expect(try StoreInspection(db).memberSHAs(of: "acme/stalled") == (try simulator.reachableSHAs(owner: "acme", name: "stalled")))

            let outputs = ["stdout": stalled.stdout, "stderr": stalled.stderr, "again": again.stdout + again.stderr]
            #expect(SecretScan.leaks(in: outputs).isEmpty)
            #expect(SecretScan.leaks(inStoreAt: db).isEmpty)
            let storeFiles = [db, db + "-wal"].compactMap { FileManager.default.contents(atPath: $0) }
            #expect(!storeFiles.isEmpty && storeFiles.allSatisfy { $0.range(of: Data(sent.utf8)) == nil })
        }
    }
}
