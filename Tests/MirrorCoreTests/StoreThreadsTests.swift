import Foundation
import GitHubSim
import MirrorTestSupport
import Synchronization
import Testing

@testable import MirrorCore

/// A sync's blocking store calls run on `DedicatedThreads.store`, never on Swift's
/// cooperative pool (docs/ARCHITECTURE.md): a real sync against github-sim into
/// a real SQLite file.
///
/// The engine reports progress right after it stores each page, with no
/// suspension point between the two: the thread that reports is the thread
/// that wrote. (A test that the pool stays free while syncs wait for the write
/// lock stalled 6.5 s without `DedicatedThreads.store` when run alone, but in the
/// parallel suite other tests' direct store calls hold the pool too, so it
/// could not tell the two apart; it is not kept.)
struct StoreThreadsTests {
    static func repositories(_ count: Int) -> [SimRepository] {
        (0..<count).map {
            SimRepository(owner: "acme", name: "r\($0)", id: 8100 + $0, source: .synthetic(SyntheticSpec(commits: 250, seed: UInt64($0))))
        }
    }

    @Test func everyStepOfASyncRunsOnTheStoreThreads() async throws {
        try await withRunning(SimulatorHarness.start(Self.repositories(1))) { harness in
            #expect(!DedicatedThreads.isCurrentThread)
            let seen = Mutex<[Bool]>([])
            let sync = RepositorySync(
                store: .sqliteFile(harness.storePath), client: try harness.client(), logger: TestSupport.quietLogger, holder: "test")
            let outcome = await sync.run(RepositoryName(owner: "acme", name: "r0"), branch: nil) { _ in
                seen.withLock { $0.append(DedicatedThreads.isCurrentThread) }
            }
            guard case .synced(let report) = outcome else {
                Issue.record("the sync did not finish: \(outcome)")
                return
            }
            #expect(report.added == 250)
            let threads = seen.withLock { $0 }
            #expect(!threads.isEmpty && threads.allSatisfy { $0 }, "progress reported off the store threads: \(threads)")
            #expect(!DedicatedThreads.isCurrentThread, "the caller goes back to its own executor")
        }
    }
}
