import MirrorTestSupport
import Foundation
import GitHubSim
import Testing
@testable import MirrorCore
@testable import MirrorSQLite
import SQLite

/// The real swift-evolution history, replayed through github-sim.
@Suite(.enabled(if: TestSupport.hasDataset, "../shared/datasets/swift-evolution.commits.jsonl.gz not present: skipping real-data tests"))
struct DatasetReplayTests {
    static func repository() -> SimRepository {
        SimRepository(
            owner: "swiftlang", name: "swift-evolution", id: 47_081_519,
            source: .dataset(path: TestSupport.swiftEvolutionDataset))
    }

    @Test func mirrorsTheWholeHistoryAndAnswersJoeGroff() async throws {
        try await withRunning(SimulatorHarness.start([Self.repository()])) { harness in
            let report = try await harness.sync("swiftlang/swift-evolution")
            #expect(report.added == 7_807)
            #expect(report.complete)
            let store = try MirrorReader(path: harness.storePath)
            #expect(try store.commitCount() == 7_807)
            #expect(try store.db.scalarInt("SELECT count(*) FROM commits WHERE parent_count > 1") == 1_344)
            #expect(try store.commits(matching: CommitFilter(author: "Joe Groff")).count == 324)

            harness.simulator.resetStats()
            let second = try await harness.sync("swiftlang/swift-evolution")
            #expect(second.added == 0 && second.requests == 1)
            #expect(harness.simulator.stats().notModified == 1)
        }
    }

    /// Issue #3 acceptance 1: history arriving over time, merges with older
    /// dates included, is mirrored exactly at every step.
    @Test func replayingPushesKeepsTheStoreExactAtEveryStep() async throws {
        try await withRunning(SimulatorHarness.start([Self.repository()])) { harness in
            try harness.simulator.moveHead(owner: "swiftlang", name: "swift-evolution", back: 300)
            try await harness.sync("swiftlang/swift-evolution")
            #expect(
                try harness.store.memberSHAs(of: "swiftlang/swift-evolution")
                    == harness.simulator.reachableSHAs(owner: "swiftlang", name: "swift-evolution"))
            for step in [1, 2, 5, 17, 40, 75, 160] {
                try harness.simulator.moveHead(owner: "swiftlang", name: "swift-evolution", forward: step)
                let report = try await harness.sync("swiftlang/swift-evolution")
                #expect(report.complete)
                let expected = try harness.simulator.reachableSHAs(owner: "swiftlang", name: "swift-evolution")
                #expect(try harness.store.memberSHAs(of: "swiftlang/swift-evolution") == expected, "after moving forward \(step)")
            }
            #expect(try harness.store.memberSHAs(of: "swiftlang/swift-evolution").count == 7_807)
        }
    }
}
