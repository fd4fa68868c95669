import MirrorCore
import PostgreSQL

/// Pages stored in batches: one transaction holds several pages (and their walk
/// checkpoints) until the limits say commit. A failure rolls back the open batch
/// whole; its pages were never acknowledged and are fetched again from the last
/// committed checkpoint.
final class PostgreSQLPageBatches: PageBatches {
    private let store: PostgreSQLStore
    private let limits: BatchLimits

    init(store: PostgreSQLStore, limits: BatchLimits) {
        self.store = store
        self.limits = limits
    }

    var isOpen: Bool { store.batch != nil }

    func store(page: [Commit], repositoryID: Int64, walk: Walk, nextURL: String?, pagesTotal: Int?) throws -> StoredPage {
        try store.beginBatch()
        let stored = try store.store(page: page, repositoryID: repositoryID, walk: walk, nextURL: nextURL, pagesTotal: pagesTotal)
        try commitIfDue()
        return stored
    }

    func storeFromGit(_ commits: [Commit], repositoryID: Int64) throws -> Int {
        try store.beginBatch()
        let added = try store.storeFromGit(commits, repositoryID: repositoryID)
        try commitIfDue()
        return added
    }

    func commit() throws {
        try store.commitBatch()
    }

    private func commitIfDue() throws {
        guard let batch = store.batch else { return }
        guard limits.isDue(pages: batch.pages, commits: batch.commits, openSince: batch.started) else { return }
        try store.commitBatch()
        store.messageIndex.mergeIfAtLeast(MessageIndexCatchUp.duringSync, on: store.connection)
    }
}

extension PostgreSQLStore {
    /// The pages of one sync; into an empty store, or one the load will at least
    /// double, with the secondary indexes built once at the end (BulkLoadIndexes).
    public func withBatches<T>(limits: BatchLimits, _ body: (any PageBatches) async throws -> T) async throws -> T {
        finishIndexBuilds()
        let bulkLoad = try BulkLoadIndexes.dropIfWorthRebuilding(limits, fence: fence, connection)
        messageIndex.isDeferred = bulkLoad
        let result: T
        do {
            result = try await PostgreSQLPageBatches(store: self, limits: limits).committingWhenDone(body)
        } catch {
            if bulkLoad { try? restoreDeferredIndexes() }
            throw error
        }
        if bulkLoad { try restoreDeferredIndexes() }
        messageIndex.mergeIfAtLeast(MessageIndexCatchUp.afterSync, on: connection)
        return result
    }

    /// Starts the builds of the indexes a bulk load left out (a fresh index has no
    /// pending list) on connections of their own (IndexBuild), the secondary ones
    /// on one and the message index on another, while this connection finishes
    /// the sync; builds here what could not be started. The message index not
    /// at all when the load leaves as many commits unindexed as the SQLite store
    /// would leave (`BatchLimits.messageIndexLagAfterBulkLoad`): then the next
    /// writer to open the store builds it, and searches scan the messages until
    /// then, with the same answers.
    func restoreDeferredIndexes() throws {
        let leavingMessageIndex = try BulkLoadIndexes.storeHolds(
            atLeast: bulkLoadMessageIndexLag.lowerBound, connection)
        // The longest build first: it is what the sync may wait for at its end.
        let messageIndexElsewhere =
            !leavingMessageIndex && startIndexBuild(BulkLoadIndexes.messageIndexScript, purpose: "message index")
        let secondaryElsewhere = startIndexBuild(BulkLoadIndexes.secondaryIndexesScript, purpose: "indexes")
        if !secondaryElsewhere || !(leavingMessageIndex || messageIndexElsewhere) {
            try BulkLoadIndexes.restore(connection, exceptMessageIndex: leavingMessageIndex || messageIndexElsewhere)
        }
        messageIndex = MessageIndexCatchUp()
    }

    func beginBatch() throws {
        guard batch == nil else { return }
        try connection.execute("BEGIN")
        batch = OpenBatch(started: .now)
        stagingStatistics.transactionBegan()
        do {
            try fence?.check(on: connection)
            // Claimed syncs (several daemons) write their batches one at a time: a batch's
            // triggers update rows every repository shares (per-author counts, the change
            // counter) in its pages' order, and two at once deadlocked (40P01) in tests.
            if fence != nil { try connection.execute("SELECT pg_advisory_xact_lock($1)", [Self.claimedBatchLockKey]) }
        } catch {
            rollBackBatch()
            throw stated(error)
        }
    }

    /// pg_advisory_xact_lock's key for claimed syncs' batches: any constant no other lock uses.
    static let claimedBatchLockKey: Int64 = 0x636F_6D6D_6974_7303

    func commitBatch() throws {
        guard batch != nil else { return }
        batch = nil
        do {
            try fence?.checkBeforeCommit(on: connection)
            try connection.execute("COMMIT")
        } catch {
            rollBackBatch()
            throw stated(error)
        }
    }

    func rollBackBatch() {
        batch = nil
        if connection.isHealthy && connection.isInTransaction { _ = try? connection.execute("ROLLBACK") }
    }
}
