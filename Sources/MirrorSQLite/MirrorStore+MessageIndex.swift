import MirrorBookkeeping
import MirrorCore
import SQLite

// The message index behind a watermark (Schema version 11): commits are stored
// at the speed of their rows, and `commits_fts` catches up in large chunks.
// Searches stay exact meanwhile: MessageSearch tests the commits beyond the
// watermark row by row.

extension MirrorStore {
    /// Commits indexed per catch-up transaction, and how far the index may fall
    /// behind during a sync before it catches up between two batches: what a
    /// search tests row by row at most (a scan of 50,000 messages takes tens of
    /// milliseconds), and what a kill during a catch-up costs again.
    public static let messageIndexChunk = 50_000

    /// How many stored commits the message index does not cover yet.
    public func messageIndexLag() throws -> Int {
        try MessageIndexCoverage.lag(in: db)
    }

    /// Indexes the messages of every commit beyond the watermark, `chunk`
    /// commits per transaction, each moving the watermark with the rows it
    /// indexed: a kill loses at most the chunk under way, and the next catch-up
    /// starts where the last committed one ended. Returns how many were indexed.
    /// `copyingChunks`: inside a scope of batches (BackgroundCheckpoints), each chunk
    /// is copied into the file before the next begins, as SQLite's own checkpoint in
    /// its commit did, so the WAL starts over between chunks of tens of megabytes
    /// instead of holding them all.
    @discardableResult
    public func catchUpMessageIndex(chunk: Int = MirrorStore.messageIndexChunk, copyingChunks: Bool = false) throws -> Int {
        precondition(batch == nil, "the message index catches up between batches, not inside one")
        var indexed = 0
        // Read first, without the write lock: a writer opening beside another
        // one's open batch must not wait for it when there is nothing to index.
        while try newestCommitID() > indexedThrough() {
            defer { if copyingChunks { checkpoints.copyEverythingCommitted() } }
            let count = try write { try indexMessagesPastWatermark(upTo: chunk) }
            guard count > 0 else { break }
            indexed += count
        }
        return indexed
    }

    /// Indexes the messages of up to `chunk` commits beyond the watermark and
    /// moves it past them, in the caller's transaction. Returns how many.
    private func indexMessagesPastWatermark(upTo chunk: Int) throws -> Int {
        let through = try indexedThrough()
        guard
            let last = try db.scalarInt(
                "SELECT max(id) FROM (SELECT id FROM commits WHERE id > ? ORDER BY id LIMIT ?)", [through, chunk])
        else { return 0 }
        try db.cachedStatement(
            "INSERT INTO commits_fts (rowid, message) SELECT id, message FROM commits WHERE id > ? AND id <= ?"
        ).bind([through, last]).run()
        let rows = db.changes
        try db.cachedStatement("UPDATE message_index_coverage SET through_id = ?").bind([last]).run()
        return rows
    }

    private func newestCommitID() throws -> Int { try db.scalarInt("SELECT max(id) FROM commits") ?? 0 }

    private func indexedThrough() throws -> Int { try db.scalarInt("SELECT \(MessageIndexCoverage.watermark)") ?? 0 }

    /// How far the newest commit's id lies past the watermark: the unindexed
    /// commits, counted by two index lookups instead of a count of rows.
    private func idsPastWatermark() throws -> Int { try newestCommitID() - indexedThrough() }

    /// After a write outside a batch (a lone page, an import batch): the index
    /// covers what it stored before the call returns, as it always did.
    func catchUpMessageIndexAfterLoneWrite() throws {
        guard batch == nil else { return }
        try catchUpMessageIndex()
    }

    /// When a bulk load ends: catch up unless the lag is worth leaving
    /// (`BatchLimits.messageIndexLagAfterBulkLoad`).
    func catchUpMessageIndexAfterBulkLoad(copyingChunks: Bool) throws {
        if try idsPastWatermark() < bulkLoadMessageIndexLag.lowerBound { try catchUpMessageIndex(copyingChunks: copyingChunks) }
    }

    /// After a batch commits: catch up only once the index lags by what the
    /// scope allows (`SQLiteBatchScope.messageIndexLagAllowed`: a chunk, more in a
    /// bulk load), so a long first sync builds it in large chunks, not batch by batch.
    func catchUpMessageIndexIfFarBehind(allowing lag: Int, copyingChunks: Bool) throws {
        guard batch == nil else { return }
        if try idsPastWatermark() >= lag { try catchUpMessageIndex(copyingChunks: copyingChunks) }
    }

    /// Fewest unindexed messages a batch indexes before it commits: FTS5 writes
    /// a segment per statement, and statements of about a thousand rows build
    /// the index as cheaply as one statement for all of them, where 100-row ones
    /// cost markedly more (docs/MEASURED-REASONS.md, "Measured reasons: the message index").
    static let messagesIndexedWithABatch = 1_000

    /// A page of a listing announcing `pages` pages, in a scope of batches: a
    /// listing smaller than what a load may leave unindexed is indexed before the
    /// load returns anyway, so its batches index their messages as they commit.
    /// A listing's batches wait for the network between pages (its pages come one
    /// request at a time), so that work overlaps the requests, instead of
    /// running on its own after the last page (docs/MEASURED-REASONS.md, "Measured reasons:
    /// the message index"). Histories read over git, larger listings and lone writes
    /// keep the watermark's catch-up.
    func noteListingSize(pages: Int?, commitsPerPage: Int, in scope: inout SQLiteBatchScope) {
        guard let pages else { return }
        scope.indexesMessagesWithBatches = pages * commitsPerPage < bulkLoadMessageIndexLag.lowerBound
    }

    /// In the open batch, just before it commits, when its listing indexes with
    /// its batches (`SQLiteBatchScope.indexesMessagesWithBatches`): at least
    /// `messagesIndexedWithABatch` messages waiting are indexed in the batch's
    /// transaction, stored and indexed together.
    func indexMessagesBeforeCommit() throws {
        guard try idsPastWatermark() >= Self.messagesIndexedWithABatch else { return }
        _ = try indexMessagesPastWatermark(upTo: Self.messageIndexChunk)
    }
}
