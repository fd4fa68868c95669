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

    /// Issue #25 item 5 under the service: `acme/r3` deleted, then recreated with
    /// another GitHub id. The new one is mirrored under `acme/r3` and polled without
    /// error; the old one's history stays under `acme/r3#333`.
    @Test func aRepositoryRecreatedUnderAMirroredNameIsPolledUnderItsRealName() async throws {
        let directory = try TemporaryDirectory()
        let store = directory.path("state/commits.sqlite")
        // r1 keeps the owner there while r3 is deleted (an owner without repositories answers 404).
        let simulator = try await startSimulator([("r1", 331, 10, 1), ("r3", 333, 40, 3)])
        try await withRunning(simulator) { simulator in
            let daemon = try DaemonProcess.mirroring(["acme/*"], from: simulator, in: directory, logLevel: "info")
            defer { daemon.stop() }
            let inspection = StoreInspection(store)
            let old = try simulator.reachableSHAs(owner: "acme", name: "r3")
            #expect(await waitUntil(timeout: .seconds(30)) { inspection.memberSHAsSoFar(of: "acme/r3") == old }, "\(daemon.log)")
            try simulator.deleteRepository(owner: "acme", name: "r3")
            #expect(await waitUntil(timeout: .seconds(30)) { inspection.repositoryStates()["acme/r3"] == "gone" }, "\(daemon.log)")
            try simulator.addRepository(
                SimRepository(owner: "acme", name: "r3", id: 777, source: .synthetic(SyntheticSpec(commits: 25, seed: 77))))
            func caughtUp() throws -> Bool {
                inspection.memberSHAsSoFar(of: "acme/r3") == (try simulator.reachableSHAs(owner: "acme", name: "r3"))
            }
            #expect(try await waitUntil(timeout: .seconds(30)) { try caughtUp() }, "\(daemon.log)")
            #expect(inspection.memberSHAsSoFar(of: "acme/r3#333") == old)
            #expect(inspection.repositoryStates() == ["acme/r1": "active", "acme/r3": "active", "acme/r3#333": "gone"])
            // From then on it is polled under its real name, without error.
            let caughtUpAt = daemon.log.count
            #expect(
                await waitUntil(timeout: .seconds(30)) {
                    daemon.log.dropFirst(caughtUpAt).split(separator: "\n").filter {
                        $0.contains("sync finished") && $0.contains("repo=acme/r3 ")
                    }.count >= 2
                }, "\(daemon.log)")
            #expect(!daemon.log.dropFirst(caughtUpAt).contains(" error "), "\(daemon.log)")
            #expect(!daemon.log.contains("r3#"), "\(daemon.log)")
        }
    }
}
