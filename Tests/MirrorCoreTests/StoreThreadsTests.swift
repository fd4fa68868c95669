import Foundation
import GitHubSim
import MirrorTestSupport
import SQLite
import Synchronization
import Testing

@testable import MirrorCore

/// A sync's blocking store calls run on `StoreThreads`, never on Swift's
/// cooperative pool (docs/ARCHITECTURE.md): real syncs against github-sim, a
/// real SQLite file whose write lock another connection holds.
@Suite(.serialized)
struct StoreThreadsTests {
    static func repositories(_ count: Int) -> [SimRepository] {
        (0..<count).map {
            SimRepository(owner: "acme", name: "r\($0)", id: 8100 + $0, source: .synthetic(SyntheticSpec(commits: 250, seed: UInt64($0))))
        }
    }

    @Test func everyStepOfASyncRunsOnTheStoreThreads() async throws {
        try await withRunning(SimulatorHarness.start(Self.repositories(1))) { harness in
            let seen = Mutex<[Bool]>([])
            let sync = RepositorySync(
                store: .sqliteFile(harness.storePath), client: try harness.client(), logger: TestSupport.quietLogger, holder: "test")
            let outcome = await sync.run(RepositoryName(owner: "acme", name: "r0"), branch: nil) { _ in
                seen.withLock { $0.append(StoreThreads.isCurrentThread) }
            }
            guard case .synced(let report) = outcome else {
                Issue.record("the sync did not finish: \(outcome)")
                return
            }
            #expect(report.added == 250)
            let threads = seen.withLock { $0 }
            #expect(!threads.isEmpty && threads.allSatisfy { $0 }, "progress reported off the store threads: \(threads)")
            #expect(!StoreThreads.isCurrentThread, "the caller goes back to its own executor")
        }
    }

    /// As many syncs as the cooperative pool has threads, each blocked in
    /// SQLite's busy wait (another connection holds the write lock): the test's
    /// own sleeps, on the cooperative pool, still wake on time. Were the syncs
    /// on the pool, every thread of it would sleep in the busy wait for 5 s.
    @Test func syncsWaitingForTheWriteLockLeaveTheCooperativePoolFree() async throws {
        let count = max(2, ProcessInfo.processInfo.activeProcessorCount)
        try await withRunning(SimulatorHarness.start(Self.repositories(count))) { harness in
            _ = try MirrorStore(path: harness.storePath)
            let holder = try Connection(path: harness.storePath)
            try holder.execute("BEGIN IMMEDIATE TRANSACTION")
            let client = try harness.client()
            let syncs = Task {
                await withTaskGroup(of: Void.self) { group in
                    for index in 0..<count {
                        group.addTask {
                            let sync = RepositorySync(
                                store: .sqliteFile(harness.storePath), client: client, logger: TestSupport.quietLogger, holder: "test")
                            _ = await sync.run(RepositoryName(owner: "acme", name: "r\(index)"), branch: nil)
                        }
                    }
                }
            }
            let clock = ContinuousClock()
            let start = clock.now
            var wakeUps = 0
            for _ in 0..<30 {
                try await Task.sleep(for: .milliseconds(50))
                wakeUps += 1
            }
            let elapsed = clock.now - start
            try holder.execute("ROLLBACK TRANSACTION")
            await syncs.value
            // 30 sleeps of 50 ms: 1.5 s when the pool is free, over 5 s when the busy waits hold it.
            #expect(elapsed < .seconds(4), "the cooperative pool stalled for \(elapsed) while \(count) syncs waited for the store")
            #expect(wakeUps == 30)
        }
    }
}
