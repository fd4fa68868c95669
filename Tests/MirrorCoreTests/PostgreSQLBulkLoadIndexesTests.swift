import Foundation
@testable import MirrorPostgreSQL
import MirrorTestSupport
import PostgreSQL
import Testing

@testable import MirrorCore

/// What only the PostgreSQL store does about a bulk load's indexes
/// (MirrorPostgreSQL/BulkLoadIndexes.swift; what both stores do is in
/// `BulkLoadIndexesContractTests`): the trigram index with its options, and
/// the builds on connections of their own beside the writer.
@Suite struct PostgreSQLBulkLoadIndexesTests {
    /// Every index of the store's tables with its definition and options, as PostgreSQL states them.
    static func indexes(_ connection: PostgreSQLConnection) throws -> [String] {
        let rows = try connection.execute(
            """
            SELECT i.indexdef || coalesce(' ' || array_to_string(c.reloptions, ','), '')
            FROM pg_indexes i JOIN pg_class c ON c.relname = i.indexname
            WHERE i.schemaname = current_schema() ORDER BY i.indexname COLLATE "C"
            """)
        return (0..<rows.count).compactMap { rows.string($0, 0) }
    }

    static func hasIndex(_ name: String, _ connection: PostgreSQLConnection) throws -> Bool {
        try connection.execute("SELECT count(*) FROM pg_indexes WHERE indexname = $1", [name]).int(0, 0) == 1
    }

    /// A new database, and a connection of the test's own that watches its indexes.
    static func newDatabase() async throws -> (uri: String, observer: PostgreSQLConnection) {
        let uri = try await PostgreSQLServer.shared().createDatabase()
        return (uri, try PostgreSQLConnection(uri: uri))
    }

    /// A writer on the store at `uri`, which adopts the contract tests' repository.
    static func newStore(_ uri: String) throws -> (writer: any MirrorWriter, repositoryID: Int64) {
        TestStoreDrivers.register()
        let writer = try StoreLocation(uri).openSyncWriter()
        let repository = try writer.adopt(StoreFixtures.identity, requestedAs: StoreFixtures.identity.fullName)
        return (writer, repository.id)
    }

    @Test func aFirstLoadBuildsTheIndexesAtTheEndAsTheMigrationsMadeThem() async throws {
        let (uri, observer) = try await Self.newDatabase()
        let commits = PostgreSQLBulkPageTablesTests.commits(700)
        var migrated: [String] = []
        var duringLoad: [Bool] = []
        do {
            let (writer, repositoryID) = try Self.newStore(uri)
            migrated = try Self.indexes(observer)
            #expect(migrated.contains { $0.contains("commits_message_trgm") && $0.contains("gin_pending_list_limit=262144") })
            _ = try await writer.withBatches(limits: BatchLimits(maximumCommits: 200)) { batches in
                for start in stride(from: 0, to: commits.count, by: 100) {
                    _ = try batches.storeFromGit(Array(commits[start..<start + 100]), repositoryID: repositoryID)
                    duringLoad.append(try Self.hasIndex("commits_message_trgm", observer))
                }
            }
        }  // the writer is closed here, which waits for the message index's build
        #expect(duringLoad.allSatisfy { !$0 }, "the trigram index is built once, after the pages")
        #expect(try Self.indexes(observer) == migrated)

        let reader = try StoreLocation(uri).openCommitReader()
        try PostgreSQLBulkPageTablesTests.expectExactGreps(reader, commits)
        let check = try reader.check()
        #expect(check.integrity == ["ok"] && check.foreignKeyViolations.isEmpty)
    }

    /// The indexes a load left out are built on connections of their own
    /// (IndexBuild), the secondary ones on one and the message index on another:
    /// a load returns without waiting for them, queries meanwhile answer exactly
    /// without them, and closing the writer waits for them; when a build fails,
    /// the writer builds what it left missing itself.
    @Test(arguments: [nil, "indexes", "message index"])
    func theIndexesAreBuiltBesideTheWriter(failingBuild: String?) async throws {
        let (uri, observer) = try await Self.newDatabase()
        let commits = PostgreSQLBulkPageTablesTests.commits(300)
        var migrated: [String] = []
        do {
            // A writer that built the indexes itself would wait for the locks held below: it
            // fails the test after 20 s instead of waiting for them for ever.
            let (writer, repositoryID) = try Self.newStore(uri + "?options=-c%20lock_timeout%3D20s")
            migrated = try Self.indexes(observer)
            // Holding the builds' locks keeps them waiting, whatever the machine's speed.
            let locks = [BulkLoadIndexes.restoreLockKey, BulkLoadIndexes.messageIndexLockKey]
            for key in locks { try observer.execute("SELECT pg_advisory_lock($1)", [key]) }
            _ = try await writer.withBatches(limits: BatchLimits()) { batches in
                try batches.storeFromGit(commits, repositoryID: repositoryID)
            }
            #expect(try !Self.hasIndex("commits_author_id", observer), "the load returned before the builds")
            #expect(try !Self.hasIndex("commits_message_trgm", observer), "the load returned before the builds")
            let builders = try observer.execute(
                """
                SELECT application_name, pid FROM pg_stat_activity
                WHERE application_name LIKE 'commits-mirror (%' AND datname = current_database() ORDER BY 1
                """)
            #expect((0..<builders.count).map { builders.string($0, 0) } == ["commits-mirror (indexes)", "commits-mirror (message index)"])
            let reader = try StoreLocation(uri).openCommitReader()
            try PostgreSQLBulkPageTablesTests.expectExactGreps(reader, commits)
            #expect(try reader.commitCount(repositoryID: repositoryID) == commits.count)
            let failing = (0..<builders.count).first { builders.string($0, 0) == "commits-mirror (\(failingBuild ?? ""))" }
            if let failing { try observer.execute("SELECT pg_terminate_backend($1)", [builders.int(failing, 1) ?? 0]) }
            for key in locks { try observer.execute("SELECT pg_advisory_unlock($1)", [key]) }
        }
        #expect(try Self.indexes(observer) == migrated)
    }

    /// A new store's first load of `commits` with `lag` as its bulk loads' lag
    /// (`BatchLimits.messageIndexLagAfterBulkLoad`, lowered here), its writer closed
    /// on return; the indexes the migrations made, as the test's observer saw them.
    static func firstLoad(_ commits: [Commit], lag: Range<Int>) async throws
        -> (uri: String, observer: PostgreSQLConnection, migrated: [String])
    {
        let (uri, observer) = try await newDatabase()
        let (writer, repositoryID) = try newStore(uri)
        let migrated = try indexes(observer)
        try #require(writer as? PostgreSQLStore).bulkLoadMessageIndexLag = lag
        _ = try await writer.withBatches(limits: BatchLimits(maximumCommits: 200)) { batches in
            try batches.storeFromGit(commits, repositoryID: repositoryID)
        }
        return (uri, observer, migrated)
    }

    /// A load that leaves as many commits unindexed as the SQLite store would leave
    /// returns without the message index: `check` says how many commits wait for
    /// it, searches answer exactly without it, and the next writer to open the
    /// store builds it. Closing the load's writer waits for no build.
    @Test func aLargeLoadLeavesTheMessageIndexToTheNextWriter() async throws {
        let commits = PostgreSQLBulkPageTablesTests.commits(700)
        let (uri, observer, migrated) = try await Self.firstLoad(commits, lag: 700..<200_000)
        #expect(try Self.hasIndex("commits_author_id", observer))
        #expect(try !Self.hasIndex("commits_message_trgm", observer))
        let reader = try StoreLocation(uri).openCommitReader()
        let lagging = try reader.check()
        #expect(lagging.messageIndexLag == 700 && lagging.unindexedMessages == 0 && !lagging.isDamaged)
        try PostgreSQLBulkPageTablesTests.expectExactGreps(reader, commits)

        _ = try StoreLocation(uri).openSyncWriter()
        #expect(try Self.indexes(observer) == migrated)
        #expect(try reader.check().messageIndexLag == 0)
        try PostgreSQLBulkPageTablesTests.expectExactGreps(reader, commits)
    }

    /// One commit fewer than the lag it may leave: the index is built before the load's writer closes.
    @Test func aSmallerLoadBuildsTheMessageIndexBeforeItsWriterCloses() async throws {
        let (uri, observer, _) = try await Self.firstLoad(PostgreSQLBulkPageTablesTests.commits(700), lag: 701..<200_000)
        #expect(try Self.hasIndex("commits_message_trgm", observer))
        #expect(try StoreLocation(uri).openCommitReader().check().messageIndexLag == 0)
    }
}
