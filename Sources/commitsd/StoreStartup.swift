import Foundation
import Logging
import MirrorCore
import ServiceLifecycle
import Synchronization

/// What commitsd reads from its store before the first sync, through the
/// store seam (`openSyncWriter`, `openCommitReader`) whichever backend holds
/// it: opening the writer creates or migrates the store; the reader then tells
/// which repositories have synced before and how active each is (for the
/// plan), and what is stored (for the metrics, so a restarted service reports
/// them before its first sync).
struct StoreStartup: Sendable {
    /// Keys (`owner/name@branch`, and `owner/name@` for any branch) of the repositories that synced before.
    var synced: Set<String>
    /// What the store tells of each synced repository's activity, by the same keys.
    var activity: [String: PollActivity]

    /// Blocks on the store (run it on `DedicatedThreads.store` once services run).
    static func read(_ store: StoreLocation, metrics: MirrorMetrics, logger: Logger) throws -> StoreStartup {
        let writer = try store.openSyncWriter()
        if let upgrade = writer.upgraded {
            logger.notice(
                "upgraded the store's schema; a copy was made first",
                metadata: [
                    "store": "\(store)", "store.from_version": "\(upgrade.fromVersion)",
                    "store.to_version": "\(upgrade.toVersion)", "store.backup": "\(upgrade.backupPath)",
                ])
        }
        let reader = try store.openCommitReader()
        try metrics.recordStored(reader)
        try? metrics.recordMessageIndexLag(reader)
        metrics.prepareStoreWriteFailures()
        // Keys for both the explicit branch and "the default branch".
        func keys(_ repository: String, _ branch: String) -> [String] {
            ["\(repository.lowercased())@\(branch)", "\(repository.lowercased())@"]
        }
        let synced = Set(try reader.allSyncStates().filter { $0.lastSuccessAt != nil }.flatMap { keys($0.repository, $0.branch) })
        let now = Date()
        let activity = Dictionary(
            try reader.branchHeads().flatMap { head in
                keys(head.repository, head.branch).map {
                    ($0, PollActivity(head: head.head, committedAt: head.committedAt, now: now))
                }
            },
            uniquingKeysWith: { first, _ in first }
        ).filter { synced.contains($0.key) }
        return StoreStartup(synced: synced, activity: activity)
    }

    /// Tries `read` again and again, `RetryPolicy`'s backoff apart (1 s doubling to
    /// 30 s, jittered), until the store opens: a database server that is down,
    /// restarting, or refusing this role for now is waited for, never a reason
    /// to exit (under systemd that would become a restart loop). Logs a line
    /// when the reason changes and when the store opens, not at every attempt.
    /// `nil` when commitsd is shutting down meanwhile.
    static func waitFor(
        _ store: StoreLocation, firstFailure: String, metrics: MirrorMetrics, logger: Logger
    ) async -> StoreStartup? {
        var reported = firstFailure
        var attempt = 0
        while true {
            attempt += 1
            let pause = RetryPolicy().backoff(afterAttempt: attempt)
            do {
                try await cancelWhenGracefulShutdown { try await Task.sleep(for: pause) }
            } catch {
                return nil
            }
            do {
                let startup = try read(store, metrics: metrics, logger: logger)
                logger.notice("the store opens now; starting to sync", metadata: ["store": "\(store)", "attempts": "\(attempt + 1)"])
                return startup
            } catch {
                let line = DaemonAdvice.line(for: error)
                let metadata: Logger.Metadata = ["store": "\(store)", "error": "\(line)", "attempts": "\(attempt + 1)"]
                if line == reported {
                    logger.debug("the store still does not open; trying again", metadata: metadata)
                } else {
                    logger.error(Self.waitingMessage, metadata: metadata)
                    reported = line
                }
            }
        }
    }

    /// The one line an operator sees while commitsd waits for its store.
    static let waitingMessage: Logger.Message =
        "cannot open the store; commitsd keeps trying (1 s doubling to 30 s apart) and /readyz answers 503 until it opens"
}

/// How the first opening of the store went, for the sync service.
enum StoreAtStart: Sendable {
    case opened(StoreStartup)
    /// It did not open (a database server down, say); `reason` is the line logged.
    case notYet(reason: String)
}

/// Whether commitsd got past `StoreStartup` (`/readyz` is 503 before that):
/// set once by whoever read it, read by every readiness probe.
final class StartupState: Sendable {
    private let done = Atomic<Bool>(false)

    var isDone: Bool { done.load(ordering: .acquiring) }

    func markDone() { done.store(true, ordering: .releasing) }
}
