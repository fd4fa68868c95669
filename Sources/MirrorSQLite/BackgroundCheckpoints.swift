import Dispatch
import SQLite
import Synchronization

/// Copies the WAL into the database file on a thread and connection of its own
/// while a scope of batches goes on (`MirrorStore.withBatches`), instead of in
/// the writer's commits.
///
/// SQLite checkpoints in the commit that takes the WAL past 1,000 pages: the
/// WAL synced, some 800 pages written into the file, the file synced. In a
/// first sync over REST that holds the writer every quarter second, and the
/// engine, which asks for pages only two ahead of the one it stores, sends no
/// request meanwhile: a fifth of the sync's wall time (BENCHMARKS.md, "Measured
/// reasons: memory and checkpoints"). A passive checkpoint on another connection copies what is
/// committed without the write lock, so the writer and the requests go on.
///
/// The WAL starts over from its beginning only when a write transaction begins
/// with every frame copied, which a writer that never waits seldom meets: it
/// grew to 278 MB in a 100,000-commit sync. So once it passes `restartFrames`,
/// the writer waits, before its next batch, until what is committed is copied
/// (`restartWALIfLong`), once per `restartFrames` of growth: a reader holding an
/// old snapshot can keep frames from being copied, and waiting again would not help.
///
/// Durability is unchanged: every commit is in the WAL, whichever connection
/// copies it later, and a checkpoint cut short (a kill) is redone from the WAL.
/// It is an optimisation only: when the connection cannot be opened or a
/// checkpoint fails, the WAL waits for the next one, or for SQLite's own
/// checkpointing, back on when the scope ends.
///
/// The connection is used on `queue` alone; `state` is all that is shared.
final class BackgroundCheckpoints: @unchecked Sendable {
    /// How long the WAL grows before the writer lets it start over: 32 MiB of 4 KiB pages.
    static let defaultRestartFrames = 8192

    private let path: String
    private let restartFrames: Int
    private let queue = DispatchQueue(label: "commits-mirror.wal-checkpoint")
    private let running = DispatchGroup()
    private let state: Mutex<State>
    /// Opened on first use, on `queue`.
    private var connection: Connection?

    private struct State {
        /// Whether a checkpoint is queued or under way: at most one at a time.
        var pending = false
        /// The WAL's length in frames when the last checkpoint ran.
        var walFrames = 0
        /// The length at which the writer next waits for the WAL to be copied.
        var restartAt: Int
    }

    init(path: String, restartFrames: Int = BackgroundCheckpoints.defaultRestartFrames) {
        self.path = path
        self.restartFrames = restartFrames
        state = Mutex(State(restartAt: restartFrames))
    }

    /// Starts a passive checkpoint of what is committed, unless one is under
    /// way (it copies what it finds; the next commit starts another).
    func start() {
        let idle = state.withLock { state in
            defer { state.pending = true }
            return !state.pending
        }
        guard idle else { return }
        queue.async(group: running) { [self] in
            let frames = checkpoint()
            state.withLock { state in
                state.pending = false
                guard let frames else { return }
                // The WAL started over since the writer last waited: the next wait is a full length away.
                if frames < state.walFrames { state.restartAt = restartFrames }
                state.walFrames = frames
            }
        }
    }

    /// The WAL's length in frames after copying what it could; nil on failure.
    private func checkpoint() -> Int? {
        do {
            if connection == nil {
                let opened = try Connection(path: path, mode: .readWrite)
                try opened.execute("PRAGMA journal_size_limit = \(MirrorStore.walSizeLimit)")
                connection = opened
            }
            return try connection?.prepare("PRAGMA wal_checkpoint(PASSIVE)").first { $0.int(1) }
        } catch {
            connection = nil
            return nil
        }
    }

    /// Before the writer's next transaction: when the WAL has grown past the
    /// next restart length, waits until what is committed is copied, so that
    /// transaction starts the WAL over.
    func restartWALIfLong() {
        let due = state.withLock { state in
            guard state.walFrames >= state.restartAt else { return false }
            state.restartAt = state.walFrames + restartFrames
            return true
        }
        guard due else { return }
        copyEverythingCommitted()
    }

    /// Returns once a checkpoint that began after the last commit has ended.
    func copyEverythingCommitted() {
        // The checkpoint under way may have begun before the last commit: one more copies it.
        running.wait()
        start()
        running.wait()
    }
}
