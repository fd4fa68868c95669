import MirrorBookkeeping
import MirrorCore
import PostgreSQL

/// What one `PostgreSQLStore.withBatches` scope decided of the write path,
/// owned by the scope's handle (`BatchedPages`): the store keeps no mode of its own.
package struct PostgreSQLBatchScope {
    /// Whether the message index is away while a bulk load fills the store
    /// (BulkLoadIndexes): its pending list is not merged meanwhile.
    package var defersMessageIndex = false
}

extension PostgreSQLStore: BatchingStore {
    package var openBatch: OpenBatch? {
        get { batch }
        set { batch = newValue }
    }

    /// A page and its walk's step in the open batch; a failure rolls back the open
    /// batch whole, its pages never acknowledged and fetched again from the last
    /// committed checkpoint.
    package func writePage(
        _ page: [Commit], repositoryID: Int64, walk: Walk, nextURL: String?, pagesTotal: Int?,
        scope: inout PostgreSQLBatchScope
    ) throws -> StoredPage {
        try writePage(page, repositoryID: repositoryID, walk: walk, nextURL: nextURL, pagesTotal: pagesTotal)
    }

    package func writeFromGit(_ commits: [Commit], repositoryID: Int64, scope: inout PostgreSQLBatchScope) throws -> Int {
        try writeFromGit(commits, repositoryID: repositoryID)
    }

    /// A long first sync merges the pending list between its batches, not inside one.
    package func batchCommittedWhenDue(_ scope: PostgreSQLBatchScope) {
        guard !scope.defersMessageIndex else { return }
        messageIndex.mergeIfAtLeast(MessageIndexCatchUp.duringSync, on: connection)
    }
}

extension PostgreSQLStore {
    /// The pages of one sync; into an empty store, or one the load will at least
    /// double, with the secondary indexes built once at the end (BulkLoadIndexes).
    public func withBatches<T>(limits: BatchLimits, _ body: (any PageBatches) async throws -> T) async throws -> T {
        finishIndexBuilds()
        let bulkLoad = try BulkLoadIndexes.dropIfWorthRebuilding(limits, fence: fence, connection)
        let scope = PostgreSQLBatchScope(defersMessageIndex: bulkLoad)
        let result: T
        do {
            result = try await BatchedPages(store: self, limits: limits, scope: scope).committingWhenDone(body)
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

    package func beginBatch(_ scope: PostgreSQLBatchScope = PostgreSQLBatchScope()) throws {
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

    package func commitBatch(_ scope: PostgreSQLBatchScope = PostgreSQLBatchScope()) throws {
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
