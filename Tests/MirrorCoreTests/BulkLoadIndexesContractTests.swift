import Foundation
import MirrorTestSupport
import PostgreSQL
import SQLite
import Testing

@testable import MirrorCore

/// A load into an empty store, or one announced larger than what the store
/// holds, builds its secondary indexes at the end (`BulkLoadIndexes` in each
/// backend, by `BatchLimits.makeBulkLoad`): they are away while the pages go in,
/// and they come back exactly as the migrations made them whatever ends the
/// load. One suite, run against both backends; what only one backend does is
/// in `SQLiteBulkLoadIndexesTests` and `PostgreSQLBulkLoadIndexesTests`.
@Suite struct BulkLoadIndexesContractTests {
    typealias Backend = StoreContractTests.Backend
    typealias StoreUnderTest = StoreContractTests.StoreUnderTest
    struct Interrupted: Error {}

    /// An index both backends build after a bulk load.
    static let watched = "commits_author_id"

    /// Every index of the store with its definition, as the backend states it.
    static func indexes(_ store: StoreUnderTest) throws -> [String] {
        let sql: String
        switch store.location {
        case .sqliteFile:
            sql = "SELECT name || ': ' || sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL ORDER BY name"
        case .postgreSQL:
            sql = """
                SELECT i.indexdef || coalesce(' ' || array_to_string(c.reloptions, ','), '')
                FROM pg_indexes i JOIN pg_class c ON c.relname = i.indexname
                WHERE i.schemaname = current_schema() ORDER BY i.indexname COLLATE "C"
                """
        }
        return try store.committed(sql).compactMap { $0.first ?? nil }
    }

    static func hasWatchedIndex(_ store: StoreUnderTest) throws -> Bool {
        try indexes(store).contains { $0.contains(" \(watched) ") || $0.hasPrefix("\(watched):") }
    }

    /// What a load killed between its first pages and its last leaves behind.
    static func dropIndexes(_ names: [String], in store: StoreUnderTest) throws {
        switch store.location {
        case .sqliteFile(let path):
            let connection = try Connection(path: path)
            for name in names { try connection.execute("DROP INDEX \(name)") }
        case .postgreSQL(let uri):
            try PostgreSQLConnection(uri: uri).execute("DROP INDEX " + names.joined(separator: ", "))
        }
    }

    /// Whether the store's indexes become `expected`: PostgreSQL builds the
    /// message index on a second connection after a bulk load, which ends on its own.
    static func indexesBecome(_ expected: [String], _ store: StoreUnderTest) async -> Bool {
        await waitUntil(timeout: .seconds(60)) { (try? indexes(store)) == expected }
    }

    static func adopt(_ store: StoreUnderTest) throws -> Int64 {
        try store.writer.adopt(StoreFixtures.identity, requestedAs: StoreFixtures.identity.fullName).id
    }

    @Test(arguments: Backend.allCases)
    func aLoadThatFailsStillEndsWithEveryIndex(backend: Backend) async throws {
        let store = try await StoreUnderTest(backend)
        let repositoryID = try Self.adopt(store)
        let migrated = try Self.indexes(store)
        var duringLoad: Bool?
        await #expect(throws: Interrupted.self) {
            try await store.writer.withBatches(limits: BatchLimits(maximumCommits: 100)) { batches in
                _ = try batches.storeFromGit(SQLiteBulkLoadIndexesTests.commits(200), repositoryID: repositoryID)
                duringLoad = try Self.hasWatchedIndex(store)
                throw Interrupted()
            }
        }
        #expect(duringLoad == false)
        #expect(await Self.indexesBecome(migrated, store), "\((try? Self.indexes(store)) ?? [])")
        #expect(try store.committedCount("SELECT count(*) FROM commits") == 200)
    }

    @Test(arguments: Backend.allCases)
    func aWriterOpeningAStoreWhoseLoadWasCutShortRebuildsTheIndexes(backend: Backend) async throws {
        let store = try await StoreUnderTest(backend)
        let repositoryID = try Self.adopt(store)
        let complete = try Self.indexes(store)
        _ = try await store.writer.withBatches(limits: BatchLimits()) { batches in
            try batches.storeFromGit(SQLiteBulkLoadIndexesTests.commits(50), repositoryID: repositoryID)
        }
        #expect(await Self.indexesBecome(complete, store))
        try Self.dropIndexes([Self.watched, "commit_coauthors_author_id"], in: store)
        #expect(try Self.indexes(store) != complete)

        _ = try store.location.openSyncWriter()
        #expect(try Self.indexes(store) == complete)
    }

    /// A git bootstrap after the first page REST stored: the load it announces dwarfs the store.
    @Test(arguments: Backend.allCases)
    func aLoadAnnouncedLargerThanTheStoreBuildsTheIndexesAtTheEnd(backend: Backend) async throws {
        let store = try await StoreUnderTest(backend)
        let repositoryID = try Self.adopt(store)
        let complete = try Self.indexes(store)
        let commits = SQLiteBulkLoadIndexesTests.commits(600)
        _ = try await store.writer.withBatches(limits: BatchLimits()) { batches in
            try batches.storeFromGit(Array(commits[0..<100]), repositoryID: repositoryID)
        }
        var duringLoad: [Bool] = []
        _ = try await store.writer.withBatches(limits: BatchLimits(maximumCommits: 100, expectedCommits: 5_000)) { batches in
            for start in stride(from: 100, to: 600, by: 100) {
                _ = try batches.storeFromGit(Array(commits[start..<start + 100]), repositoryID: repositoryID)
                duringLoad.append(try Self.hasWatchedIndex(store))
            }
        }
        #expect(duringLoad == Array(repeating: false, count: 5))
        #expect(await Self.indexesBecome(complete, store), "\((try? Self.indexes(store)) ?? [])")
        #expect(try store.committedCount("SELECT count(*) FROM commits") == 600)
    }

    @Test(arguments: Backend.allCases)
    func pagesIntoAStoreThatHoldsCommitsKeepTheIndexesInPlace(backend: Backend) async throws {
        let store = try await StoreUnderTest(backend)
        let repositoryID = try Self.adopt(store)
        let commits = SQLiteBulkLoadIndexesTests.commits(300)
        _ = try await store.writer.withBatches(limits: BatchLimits()) { batches in
            try batches.storeFromGit(Array(commits[0..<100]), repositoryID: repositoryID)
        }
        var duringLoad: [Bool] = []
        _ = try await store.writer.withBatches(limits: BatchLimits(maximumCommits: 100)) { batches in
            for start in [100, 200] {
                _ = try batches.storeFromGit(Array(commits[start..<start + 100]), repositoryID: repositoryID)
                duringLoad.append(try Self.hasWatchedIndex(store))
            }
        }
        #expect(duringLoad == [true, true])
    }

    /// The rule both backends follow.
    @Test func aLoadIsBulkIntoAnEmptyStoreOrOneItAtLeastDoubles() {
        #expect(BatchLimits().makeBulkLoad(intoStoreHolding: 0))
        #expect(BatchLimits(expectedCommits: 5_000).makeBulkLoad(intoStoreHolding: 0))
        // The first page before a history is read over git: too small to be worth a rebuild.
        #expect(!BatchLimits(expectedCommits: 2_000).makeBulkLoad(intoStoreHolding: 0))
        #expect(!BatchLimits().makeBulkLoad(intoStoreHolding: 1))
        #expect(BatchLimits(expectedCommits: 5_000).makeBulkLoad(intoStoreHolding: 5_000))
        #expect(!BatchLimits(expectedCommits: 5_000).makeBulkLoad(intoStoreHolding: 5_001))
        #expect(!BatchLimits(expectedCommits: 4_999).makeBulkLoad(intoStoreHolding: 10))
    }
}
