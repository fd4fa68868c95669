import Foundation
import MirrorBookkeeping
import MirrorCore
import PostgreSQL

/// The mirror in a PostgreSQL database: the sync engine's store, the catalogue
/// of repositories and the request ledger, on one libpq connection.
///
/// Every write runs in a transaction (or in the open batch of `withBatches`),
/// retried whole on a serialization failure or a deadlock. A lost connection
/// fails the write; the transaction rolled back on the server, and the next sync
/// resumes from the walk's last committed checkpoint, as after a crash.
/// Not `Sendable`: one thread at a time, like the connection.
public final class PostgreSQLStore: MirrorWriter {
    public let location: StoreLocation
    let connection: PostgreSQLConnection
    /// Migrations are transactional and need no copy first: there is nothing to report.
    public var upgraded: StoreUpgrade? { nil }
    package var batch: OpenBatch?
    var plannerStatistics: PlannerStatistics
    var messageIndex = MessageIndexCatchUp()
    /// What the open transaction told the planner of the staged pages.
    var stagingStatistics = PageStaging.Statistics()
    /// What a bulk load leaves of the message index's lag (tests lower it).
    var bulkLoadMessageIndexLag = BatchLimits.messageIndexLagAfterBulkLoad
    /// Set for a claimed sync's writer: every write transaction checks the lease
    /// when it begins and before it commits.
    let fence: WriteFence?
    /// The builds of what a bulk load left out, each on a connection of its own, until waited for.
    private var indexBuilds: [IndexBuild] = []
    /// For those connections: the URI and the password this one was opened with.
    private let uri: String
    private let password: String?

    /// `claimed` makes this the writer of a claimed sync (`PostgreSQLSyncLeases.openFencedWriter`,
    /// `QueueClaim.openWriter`): its writes fenced by the lease, its session named after the
    /// holder in `pg_stat_activity` and ended by the server, from the first statement on (the
    /// migrations' lock included), should it idle inside a transaction for half the lease.
    init(uri: String, password: String?, claimed: (fence: WriteFence, leaseDuration: Duration)? = nil) throws {
        location = .postgreSQL(uri)
        self.uri = uri
        self.password = password
        fence = claimed?.fence
        connection = try StoreSession.connect(
            uri: uri, password: password,
            applicationName: claimed.map { "commits-mirror \($0.fence.lease.owner)" } ?? "commits-mirror",
            idleInTransaction: claimed.map { StoreSession.idleInTransactionTimeout(forLease: $0.leaseDuration) }
                ?? StoreSession.idleInTransactionTimeout)
        try PostgreSQLMigrator.migrate(connection, location: uri)
        // A load into an empty store that ended before rebuilding its indexes. Best
        // effort: without them every answer is the same, only slower.
        if try BulkLoadIndexes.anyMissing(connection) { try? BulkLoadIndexes.restore(connection) }
        try PageStaging.prepare(connection)
        plannerStatistics = try PlannerStatistics(connection)
    }

    deinit {
        rollBackBatch()
        finishIndexBuilds()
    }

    /// Starts `script` on a connection of its own (IndexBuild); false when it could not be started.
    func startIndexBuild(_ script: String, purpose: String) -> Bool {
        guard let build = IndexBuild.start(script, purpose: purpose, uri: uri, password: password) else { return false }
        indexBuilds.append(build)
        return true
    }

    /// Waits for the index builds, if any run, when no transaction of this
    /// connection could hold what they wait for; builds here what a failed one left missing.
    func finishIndexBuilds() {
        guard !indexBuilds.isEmpty, !connection.isInTransaction else { return }
        let builds = indexBuilds
        indexBuilds = []
        let failed = builds.map { $0.finish() }.contains(false)
        if failed { try? BulkLoadIndexes.restore(connection) }
    }

    /// Runs `body` in the open batch, or in a transaction of its own retried on
    /// serialization failures and deadlocks (PostgreSQL rolled it back whole),
    /// which checks the fence first and last when there is one.
    @discardableResult
    public func write<T>(_ body: () throws -> T) throws -> T {
        do {
            guard batch != nil else {
                return try connection.retryingTransaction {
                    stagingStatistics.transactionBegan()
                    try fence?.check(on: connection)
                    let value = try body()
                    try fence?.checkBeforeCommit(on: connection)
                    return value
                }
            }
            return try body()
        } catch {
            rollBackBatch()
            throw stated(error)
        }
    }

    /// `error` as the store states it, its transaction rolled back: a lock wait
    /// that ran out names who holds the lock.
    func stated(_ error: any Error) -> any Error {
        guard let error = error as? PostgreSQLError, error.isLockTimeout else { return error }
        return PostgreSQLStoreError.lockTimeout(uri: uri, holders: error.lockHolders)
    }

    // MARK: - Pages

    public func store(page: [Commit], repositoryID: Int64, walk: Walk, nextURL: String?, pagesTotal: Int?) throws -> StoredPage {
        let stored = try writePage(page, repositoryID: repositoryID, walk: walk, nextURL: nextURL, pagesTotal: pagesTotal)
        batch?.pages += 1
        batch?.commits += page.count
        return stored
    }

    public func storeFromGit(_ commits: [Commit], repositoryID: Int64) throws -> Int {
        let added = try writeFromGit(commits, repositoryID: repositoryID)
        batch?.commits += commits.count
        return added
    }

    /// The page write path: the staged page, its walk's step and checkpoint, in the
    /// open batch or a transaction of its own.
    func writePage(_ page: [Commit], repositoryID: Int64, walk: Walk, nextURL: String?, pagesTotal: Int?) throws -> StoredPage {
        var outcome = PageOutcome()
        try write {
            outcome = try PageStaging.upsert(
                page, repositoryID: repositoryID, replacingStored: true, statistics: &stagingStatistics, on: connection)
            try plannerStatistics.noteAdded(outcome.added, on: connection)
            messageIndex.noteAdded(outcome.added)
            outcome.frontier = try advanceWalk(
                walkID: walk.id, repositoryID: repositoryID, step: FrontierStep(page: page), nextURL: nextURL,
                pagesTotal: pagesTotal, listingSHA: walk.listingSHA)
        }
        return StoredPage(outcome: outcome, checkpoint: walk.advanced(nextURL: nextURL, pagesTotal: pagesTotal))
    }

    func writeFromGit(_ commits: [Commit], repositoryID: Int64) throws -> Int {
        try write {
            let added = try PageStaging.upsert(
                commits, repositoryID: repositoryID, replacingStored: false, statistics: &stagingStatistics, on: connection
            ).added
            try PageStaging.storeChanges(of: commits, on: connection)
            try plannerStatistics.noteAdded(added, on: connection)
            messageIndex.noteAdded(added)
            return added
        }
    }
}

@available(*, unavailable)
extension PostgreSQLStore: Sendable {}
