import MirrorTestSupport
import Foundation
import SQLite
import Testing

/// Issue #16: Ctrl-C during `sync` ends with one line saying what was kept and
/// that the next run resumes; the next run does.
@Suite struct InterruptMessageTests {
    @Test func ctrlCSaysWhatWasKeptAndTheNextRunResumes() async throws {
        let directory = try TemporaryDirectory()
        let db = directory.path("commits.sqlite")
        let sim = try await SimulatorProcess.start(["--synthetic", "acme/big=20000:3"])
        defer { sim.stop() }
        // Slow pages: the sync is still running when the test interrupts it.
        _ = try await sim.control("/_sim/faults", method: "POST", body: #"{"delayMilliseconds": 100}"#)
        let process = try ChildProcess(
            // Interrupted mid-walk: a first sync this long would otherwise read its history over git.
            product: "commitsctl", ["sync", "acme/big", "--db", db, "--api-url", sim.baseURL, "--no-git-bootstrap"],
            environment: ["GITHUB_TOKEN": "test-token"], stderr: .pipe)
        // Interrupt once a few pages are in. The watch runs on its own thread: a busy
        // cooperative pool must not let the sync finish unseen.
        let interrupted = await onThread { () -> Bool in
            waitUntilBlocking(timeout: .seconds(60)) { !process.isRunning || StoreInspection(db).commitCount() >= 300 }
            guard process.isRunning else { return false }
            process.signal(SIGINT)
            return true
        }
        #expect(interrupted, "the sync ended before it could be interrupted")
        let stderr = await onThread { String(decoding: process.errors!.readDataToEndOfFile(), as: UTF8.self) }
        #expect(await process.wait() == .exited(130))
        let lines = stderr.split(separator: "\n")
        #expect(lines.count == 1, "\(stderr)")
        let stored = StoreInspection(db).commitCount()
        let line = String(lines.first ?? "")
        #expect(line.hasPrefix("commitsctl: interrupted: kept "), "\(line)")
        #expect(line.hasSuffix(" of acme/big; the next sync resumes from there"), "\(line)")
        // The count said is what was stored, give or take the page committed as the signal came.
        let said = Int(line.split(separator: " ").dropFirst(3).first ?? "") ?? -1
        #expect(said <= stored && stored - said <= 100, "said \(said), stored \(stored)")

        _ = try await sim.control("/_sim/faults", method: "POST", body: "{}")
        let rerun = try await run(
            "commitsctl", ["sync", "acme/big", "--db", db, "--api-url", sim.baseURL, "--no-git-bootstrap"],
            environment: ["GITHUB_TOKEN": "test-token"])
        #expect(rerun.status == 0, "\(rerun.stderr)")
        #expect(StoreInspection(db).commitCount() == 20000)
    }

}
