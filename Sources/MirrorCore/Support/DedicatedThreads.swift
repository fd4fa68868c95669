import Foundation

/// Threads of our own, as a task executor, for work that blocks. Above all the
/// store (`store`): a SQLite write that waits up to its busy timeout for
/// another writer's lock, an `fsync` at commit, a large transaction. Swift's
/// cooperative pool has one thread per
/// core (two on a small server); a sync blocking one of them would stall every
/// other task of the process — commitsd's other lane, its metrics and health
/// endpoints, signal handling. A sync therefore runs with this executor as its
/// task executor preference (`run`): its nonisolated async code, and with it
/// every store call it makes, runs here, and it awaits the network (libcurl on
/// its own queue) without holding any thread at all.
///
/// A fixed number of threads, so a burst of syncs queues here instead of
/// growing threads; the pool's size bounds how many store calls block at once.
public final class DedicatedThreads: TaskExecutor, @unchecked Sendable {
    // @unchecked: `jobs` is touched only under `condition`'s lock.

    /// The process's store threads: commitsd's two sync lanes, its discovery
    /// and its request ledger, with one to spare.
    public static let store = DedicatedThreads(name: "commits-mirror.store", count: 4)

    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var next = 0

    private static let marker = "commits-mirror.dedicated-thread"

    /// `count` threads named `name-0`, `name-1`, …, alive as long as the process.
    public init(name: String, count: Int) {
        for index in 0..<max(1, count) {
            let thread = Thread { [unowned self] in self.work() }
            thread.name = "\(name)-\(index)"
            thread.start()
        }
    }

    /// Whether the calling code runs on threads of a `DedicatedThreads`.
    public static var isCurrentThread: Bool {
        Thread.current.threadDictionary[marker] as? Bool == true
    }

    /// Runs `operation` with these threads as its task's executor preference.
    public func run<T>(_ operation: () async throws -> T) async rethrows -> T {
        try await withTaskExecutorPreference(self, operation: operation)
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    private func work() {
        Thread.current.threadDictionary[Self.marker] = true
        let executor = asUnownedTaskExecutor()
        while true {
            condition.lock()
            while next == jobs.count { condition.wait() }
            let job = jobs[next]
            next += 1
            // Drop the run prefix now and then, so the queue does not grow for ever.
            if next == jobs.count || next >= 1024 {
                jobs.removeFirst(next)
                next = 0
            }
            condition.unlock()
            job.runSynchronously(on: executor)
        }
    }
}
