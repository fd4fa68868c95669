import MirrorTestSupport
import Foundation
import GitHubSim
import SQLite
import Testing

/// A daemon configured with a repository's old name (GitHub answers it with
/// 301 after a rename or transfer) keeps polling the same repository: one row,
/// its history growing, no error logged.
@Suite struct CommitsdRenameTests {
    @Test func aDaemonConfiguredWithTheOldNamePollsWithoutError() async throws {
        let directory = try TemporaryDirectory()
        let store = directory.path("state/commits.sqlite")
        try await withRunning(startSimulator([("widgets", 400)])) { simulator in
            try simulator.moveHead(owner: "acme", name: "widgets", back: 50)
            try simulator.rename(owner: "acme", name: "widgets", to: "newco", newName: "gadgets")
            let daemon = try DaemonProcess.mirroring(["acme/widgets"], from: simulator, in: directory, logLevel: "info")
            defer { daemon.stop() }
            let inspection = StoreInspection(store)
            func caughtUp() throws -> Bool {
                inspection.memberSHAsSoFar(of: "newco/gadgets") == (try simulator.reachableSHAs(owner: "newco", name: "gadgets"))
            }
            #expect(try await waitUntil(timeout: .seconds(20)) { try caughtUp() }, "\(daemon.log)")
            // Pushes under the new name, polled under the old one, several rounds.
            for _ in 0..<3 {
                try simulator.moveHead(owner: "newco", name: "gadgets", forward: 10)
                #expect(try await waitUntil(timeout: .seconds(20)) { try caughtUp() }, "\(daemon.log)")
            }
            // The first sync and one per push, each logged once its sync state is recorded.
            #expect(
                await waitUntil(timeout: .seconds(20)) { daemon.log.components(separatedBy: "sync finished").count - 1 >= 4 },
                "\(daemon.log)")
            #expect(!daemon.log.contains(" error "), "\(daemon.log)")
            let rows = try Connection(path: store, mode: .readOnly)
                .prepare("SELECT full_name, github_id FROM repositories").map { "\($0.string(0)) \($0.int(1))" }
            #expect(rows == ["newco/gadgets 1001"], "one row: the fixture's first repository id")
            #expect(SecretScan.leaks(in: ["log": daemon.log]).isEmpty)
        }
    }
}
