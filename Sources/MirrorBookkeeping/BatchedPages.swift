import MirrorCore

/// Pages stored together in one write transaction. Each page is stored with
/// its walk's checkpoint, so a batch that never commits (a crash, a kill)
/// leaves the store at the last committed page boundary: only the batch's
/// pages are fetched again.
package struct OpenBatch: Sendable {
    package var pages = 0
    package var commits = 0
    package let started: ContinuousClock.Instant

    package init(started: ContinuousClock.Instant) {
        self.started = started
    }
}

/// A store that gathers its page writes into batches (`SyncStore.withBatches`):
/// it opens and commits the transaction and writes a page into it; when a batch
/// is due is `BatchedPages`' to decide, the same for every backend.
///
/// Package-wide, not public: the page write path is no part of a store's API.
/// `Scope` is what one `withBatches` scope decided of the write path (bulk
/// loads, checkpoints, message-index catch-up): a value the scope's handle
/// owns and hands to each call, never a mode set on the store.
package protocol BatchingStore: AnyObject {
    associatedtype Scope
    /// The open batch, if any: the store's write transaction that writes join.
    var openBatch: OpenBatch? { get set }
    /// Opens a batch unless one is open. Holds the store's write lock: the
    /// caller never waits for the network while a batch is open.
    func beginBatch(_ scope: Scope) throws
    /// Commits the open batch, if any; a failed commit rolls it back.
    func commitBatch(_ scope: Scope) throws
    /// What follows a commit the limits made due (not one the engine asked for
    /// before it waits for the network).
    func batchCommittedWhenDue(_ scope: Scope)
    /// Stores a page with its walk's checkpoint in the open batch.
    func writePage(
        _ page: [Commit], repositoryID: Int64, walk: Walk, nextURL: String?, pagesTotal: Int?, scope: inout Scope
    ) throws -> StoredPage
    /// Stores commits read from git in the open batch; returns how many joined the repository.
    func writeFromGit(_ commits: [Commit], repositoryID: Int64, scope: inout Scope) throws -> Int
}

/// The writes of one `withBatches` scope, for any `BatchingStore`: a write
/// opens a batch that the next ones join until `limits` make it due or the
/// engine commits it. It is not `Sendable` and must not outlive its scope.
package final class BatchedPages<Store: BatchingStore>: PageBatches {
    private let store: Store
    private let limits: BatchLimits
    /// What the scope decided, as its writes have changed it since.
    package private(set) var scope: Store.Scope

    package init(store: Store, limits: BatchLimits, scope: Store.Scope) {
        self.store = store
        self.limits = limits
        self.scope = scope
    }

    /// Whether a batch's transaction is open, holding the store's write lock.
    public var isOpen: Bool { store.openBatch != nil }

    /// Stores a page with its walk's checkpoint in the open batch (opening one),
    /// and commits the batch when the page makes it due.
    public func store(page: [Commit], repositoryID: Int64, walk: Walk, nextURL: String?, pagesTotal: Int?) throws -> StoredPage {
        try store.beginBatch(scope)
        let stored = try store.writePage(
            page, repositoryID: repositoryID, walk: walk, nextURL: nextURL, pagesTotal: pagesTotal, scope: &scope)
        store.openBatch?.pages += 1
        store.openBatch?.commits += page.count
        try commitIfDue()
        return stored
    }

    /// Stores commits read from git in the open batch (opening one), and commits
    /// the batch when they make it due. Returns how many joined the repository.
    public func storeFromGit(_ commits: [Commit], repositoryID: Int64) throws -> Int {
        try store.beginBatch(scope)
        let added = try store.writeFromGit(commits, repositoryID: repositoryID, scope: &scope)
        store.openBatch?.commits += commits.count
        try commitIfDue()
        return added
    }

    /// Commits the open batch now: before waiting for the network, at the end
    /// of a listing. Nothing open, nothing done.
    public func commit() throws {
        try store.commitBatch(scope)
    }

    private func commitIfDue() throws {
        guard let batch = store.openBatch,
            limits.isDue(pages: batch.pages, commits: batch.commits, openSince: batch.started)
        else { return }
        try store.commitBatch(scope)
        store.batchCommittedWhenDue(scope)
    }
}
