import Foundation
import MirrorBookkeeping
import MirrorCore
import SQLite

/// What one `MirrorStore.withBatches` scope decided of the write path, owned by
/// the scope's handle (`BatchedPages`) and handed to each of its writes: the
/// store keeps no mode of its own.
package struct SQLiteBatchScope {
    /// How far the message index may fall behind the rows before a committed
    /// batch brings it up to date (MirrorStore+MessageIndex.swift): a chunk, more in a bulk load.
    var messageIndexLagAllowed = MirrorStore.messageIndexChunk
    /// Whether batches index the messages they store before they commit: a
    /// listing too small to leave its index behind (MirrorStore+MessageIndex.swift).
    var indexesMessagesWithBatches = false
    /// Whether the WAL is copied into the file beside the writer (BackgroundCheckpoints).
    var checkpointsInBackground = false

    /// Writes outside any scope: a lone page, an import's batch, a test's own batch.
    static let loneWrites = SQLiteBatchScope()
}

extension MirrorStore: BatchingStore {
    package var openBatch: OpenBatch? {
        get { batch }
        set { batch = newValue }
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
        var scope = SQLiteBatchScope(checkpointsInBackground: true)
        if bulkLoad { scope.messageIndexLagAllowed = bulkLoadMessageIndexLag.upperBound }
        // The scope's commits leave the WAL to BackgroundCheckpoints; SQLite's own
        // checkpointing comes back when it ends, however it ends.
        try classifyingErrors { try db.execute("PRAGMA wal_autocheckpoint = 0") }
        defer {
            try? db.execute("PRAGMA wal_autocheckpoint = \(Self.walAutocheckpointPages)")
            // What the scope committed last (its index builds, the message index's catch-up)
            // is copied before it returns, as SQLite's own checkpoint in their commits did.
            checkpoints.copyEverythingCommitted()
        }
        let result: T
        do {
            result = try await BatchedPages(store: self, limits: limits, scope: scope).committingWhenDone(body)
        } catch {
            if bulkLoad { try? BulkLoadIndexes.restore(db) }
            throw error
        }
        if bulkLoad {
            try classifyingErrors { try BulkLoadIndexes.restore(db) }
            try catchUpMessageIndexAfterBulkLoad(copyingChunks: true)
        } else {
            try catchUpMessageIndex(copyingChunks: true)
        }
        return result
    }

    /// Opens a write transaction that the following writes join until
    /// `commitBatch`. Holds the store's write lock: the caller never waits for
    /// the network while a batch is open.
    package func beginBatch(_ scope: SQLiteBatchScope = .loneWrites) throws {
        guard batch == nil else { return }
        if scope.checkpointsInBackground { checkpoints.restartWALIfLong() }
        try classifyingErrors { try db.execute("BEGIN IMMEDIATE TRANSACTION") }
        batch = OpenBatch(started: .now)
    }

    /// Commits the open batch, if any; if the commit fails, the batch is rolled back.
    package func commitBatch(_ scope: SQLiteBatchScope = .loneWrites) throws {
        guard batch != nil else { return }
        do {
            batch = nil
            if scope.indexesMessagesWithBatches { try indexMessagesBeforeCommit() }
            try db.execute("COMMIT TRANSACTION")
        } catch {
            rollBackBatch()
            throw StoreFile.classify(error, path: path)
        }
        if scope.checkpointsInBackground { checkpoints.start() }
        try catchUpMessageIndexIfFarBehind(
            allowing: scope.messageIndexLagAllowed, copyingChunks: scope.checkpointsInBackground)
    }

    /// The message index catches up after a commit, due or not (`commitBatch`).
    package func batchCommittedWhenDue(_ scope: SQLiteBatchScope) {}

    func rollBackBatch() {
        batch = nil
        if db.isInTransaction { try? db.execute("ROLLBACK TRANSACTION") }
        forgetUncommittedIDs()
    }
}
