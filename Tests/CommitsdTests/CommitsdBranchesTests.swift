import Foundation
import GitHubSim
import MirrorTestSupport
import SQLite
import Testing

/// commitsd with `branches:` (issue #29, first slice): each named branch of one repository is
/// polled on its own and kept exact, and two branches of one repository never race for its lock
/// (a sync that found it held would wait a whole interval). A real commitsd process, github-sim
/// on loopback, a real SQLite file.
@Suite(.serialized) struct CommitsdBranchesTests {
    let directory: TemporaryDirectory
    init() throws { directory = try TemporaryDirectory() }
    var store: String { directory.path("state/commits.sqlite") }

    /// Each complete branch's head as the store has it.
    func storedHeads() -> [String: String] { StoreInspection(store).completeHeads() }

    @Test func everyNamedBranchIsKeptExactWithoutWaitingForItsSiblings() async throws {
        let simulator = try await startSimulator([("widgets", 3101, 300, 8)])
        try await withRunning(simulator) { simulator in
            try simulator.moveBranch(owner: "acme", name: "widgets", branch: "release/1.0", back: 40)
            try simulator.moveBranch(owner: "acme", name: "widgets", branch: "feature", back: 5)
            let daemon = try DaemonProcess.mirroringBranches("[main, release/1.0, feature]", from: simulator, in: directory)
            defer { daemon.stop() }
            #expect(
                try await waitUntil(timeout: .seconds(60)) {
                    storedHeads() == (try simulator.branchHeads(owner: "acme", name: "widgets"))
                }, "\(daemon.log)")

            // Each move is seen on the branch's next poll, the others' polls going on meanwhile.
            let moves: [() throws -> Void] = [
                { _ = try simulator.moveBranch(owner: "acme", name: "widgets", branch: "release/1.0", forward: 20) },
                { _ = try simulator.moveBranch(owner: "acme", name: "widgets", branch: "feature", back: 30) },
                { try simulator.moveHead(owner: "acme", name: "widgets", back: 2) },
            ]
            for move in moves {
                try move()
                #expect(
                    try await waitUntil(timeout: .seconds(60)) {
                        storedHeads() == (try simulator.branchHeads(owner: "acme", name: "widgets"))
                    }, "\(daemon.log)")
            }
            // Let every branch be polled a few more times, then look for a sync that found a sibling holding the lock.
            let finished = { daemon.log.split(separator: "\n").filter { $0.contains("info sync finished ") }.count }
            let before = finished()
            #expect(await waitUntil(timeout: .seconds(60)) { finished() >= before + 9 }, "\(daemon.log)")
            #expect(!daemon.log.contains("another process is syncing this repository"), "\(daemon.log)")
            daemon.signal(SIGTERM)
            #expect(await daemon.waitForExit(timeout: .seconds(10)) == 0)
        }
    }
}
