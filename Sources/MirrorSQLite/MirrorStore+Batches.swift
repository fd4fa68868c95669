import Foundation
import MirrorCore
import SQLite

/// Writes gathered into batches inside `MirrorStore.withBatches`: the handle
/// the engine writes through while the scope lasts. It is not `Sendable` and
/// must not outlive its scope; it is used by one task (or one queue) at a time.
final class SQLitePageBatches: PageBatches {
    private let store: MirrorStore
    private let limits: BatchLimits

    fileprivate init(store: MirrorStore, limits: BatchLimits) {
        self.store = store
        self.limits = limits
    }

    /// Whether a batch's transaction is open, holding the store's write lock.
    public var isOpen: Bool { store.batch != nil }

    /// Stores a page with its walk's checkpoint in the open batch (opening one),
    /// and commits the batch when the page makes it due.
    public func store(page: [Commit], repositoryID: Int64, walk: Walk, nextURL: String?, pagesTotal: Int?) throws -> StoredPage {
        try store.beginBatch()
        let stored = try store.store(page: page, repositoryID: repositoryID, walk: walk, nextURL: nextURL, pagesTotal: pagesTotal)
        try commitIfDue()
        return stored
    }

    /// Stores commits read from git in the open batch (opening one), and commits
    /// the batch when they make it due. Returns how many joined the repository.
    public func storeFromGit(_ commits: [Commit], repositoryID: Int64) throws -> Int {
        try store.beginBatch()
        let added = try store.storeFromGit(commits, repositoryID: repositoryID)
        try commitIfDue()
        return added
    }

    /// Commits the open batch now: before waiting for the network, at the end
    /// of a listing. Nothing open, nothing done.
    public func commit() throws {
        try store.commitBatch()
    }

    private func commitIfDue() throws {
        guard let batch = store.batch else { return }
        if limits.isDue(pages: batch.pages, commits: batch.commits, openSince: batch.started) { try store.commitBatch() }
    }
}

extension MirrorStore {
    /// Pages stored together in one write transaction. Each page is stored with
    /// its walk's checkpoint, so a batch that never commits (a crash, a kill)
    /// leaves the store at the last committed page boundary: only the batch's
    /// pages are fetched again.
    struct PageBatch {
        var pages = 0
        var commits = 0
        let started: ContinuousClock.Instant
    }

    /// Runs `body` with its writes gathered into batches of `limits`: a write
    /// opens a transaction that the next ones join until the batch is due or
    /// `PageBatches.commit()` is called. When the scope ends — normally, by an
    /// error or by cancellation — what is open commits: every page in it was
    /// stored whole with its checkpoint, so it keeps the pages stored so far. A
    /// failed write has already rolled its batch back; a failed final commit is
    /// the error thrown, whatever ended the scope.
    ///
    /// Into an empty store, or one the load will at least double, the secondary
    /// indexes no sync statement reads are built once when the scope ends, however
    /// it ends (BulkLoadIndexes), and a large load leaves the message index
    /// behind the rows for the next writer to catch up
    /// (`BatchLimits.messageIndexLagAfterBulkLoad`). Any other scope that ends normally
    /// brings the message index up to date before it returns; one ended by an
    /// error leaves that to the next write's scope. A listing that announces
    /// fewer commits than a load leaves behind indexes them batch by batch as
    /// they commit (`indexMessagesBeforeCommit`), not all once it ends.
    public func withBatches<T>(limits: BatchLimits, _ body: (any PageBatches) async throws -> T) async throws -> T {
        let bulkLoad = try defersIndexesOnBulkLoads && classifyingErrors { try BulkLoadIndexes.dropIfWorthRebuilding(limits, db) }
        if bulkLoad { messageIndexLagAllowed = bulkLoadMessageIndexLag.upperBound }
        defer {
            messageIndexLagAllowed = Self.messageIndexChunk
            indexesMessagesWithBatches = false
        }
        // The scope's commits leave the WAL to BackgroundCheckpoints; SQLite's own
        // checkpointing comes back when it ends, however it ends.
        try classifyingErrors { try db.execute("PRAGMA wal_autocheckpoint = 0") }
        checkpointsInBackground = true
        defer {
            checkpointsInBackground = false
            try? db.execute("PRAGMA wal_autocheckpoint = \(Self.walAutocheckpointPages)")
            // What the scope committed last (its index builds, the message index's catch-up)
            // is copied before it returns, as SQLite's own checkpoint in their commits did.
            checkpoints.copyEverythingCommitted()
        }
        let result: T
        do {
            result = try await SQLitePageBatches(store: self, limits: limits).committingWhenDone(body)
        } catch {
            if bulkLoad { try? BulkLoadIndexes.restore(db) }
            throw error
        }
        if bulkLoad {
            try classifyingErrors { try BulkLoadIndexes.restore(db) }
            try catchUpMessageIndexAfterBulkLoad()
        } else {
            try catchUpMessageIndex()
        }
        return result
    }

    /// Opens a write transaction that the following writes join until
    /// `commitBatch`. Holds the store's write lock: the caller never waits for
    /// the network while a batch is open.
    func beginBatch() throws {
        guard batch == nil else { return }
        if checkpointsInBackground { checkpoints.restartWALIfLong() }
        try classifyingErrors { try db.execute("BEGIN IMMEDIATE TRANSACTION") }
        batch = PageBatch(started: .now)
    }

    /// Commits the open batch, if any; if the commit fails, the batch is rolled back.
    func commitBatch() throws {
        guard batch != nil else { return }
        do {
            batch = nil
            try indexMessagesBeforeCommit()
            try db.execute("COMMIT TRANSACTION")
        } catch {
            rollBackBatch()
            throw StoreFile.classify(error, path: path)
        }
        if checkpointsInBackground { checkpoints.start() }
        try catchUpMessageIndexIfFarBehind()
    }

    func rollBackBatch() {
        batch = nil
        if db.isInTransaction { try? db.execute("ROLLBACK TRANSACTION") }
    }
}
