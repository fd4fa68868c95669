import Foundation
import MirrorTestSupport
import SQLite
import Testing

@testable import MirrorCore
@testable import MirrorSQLite

/// What only the SQLite store does about a bulk load's indexes
/// (MirrorSQLite/BulkLoadIndexes.swift; what both stores do is in
/// `BulkLoadIndexesContractTests`): queries answer exactly while the indexes
/// their walks name are away.
@Suite struct SQLiteBulkLoadIndexesTests {
    /// Every index of the store with its SQL, as SQLite keeps it.
    static func indexes(_ path: String) throws -> [String] {
        try Connection(path: path, mode: .readOnly).prepare(
            "SELECT name || ': ' || sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL ORDER BY name"
        ).map { $0.string(0) }
    }

    static func hasIndex(_ name: String, _ path: String) throws -> Bool {
        try Connection(path: path, mode: .readOnly).scalarInt(
            "SELECT count(*) FROM sqlite_master WHERE type = 'index' AND name = ?", [name]) == 1
    }

    /// Commits of two authors; the needles of the PostgreSQL tests in a third of their messages.
    static func commits(_ count: Int) -> [Commit] {
        PostgreSQLBulkPageTablesTests.commits(count).enumerated().map { n, commit in
            StoreFixtures.commit(n, parents: n == 0 ? [] : [n - 1], message: commit.message, author: n % 4 == 0 ? "Lin" : "Ada")
        }
    }

    /// A writer on a new store, which adopts the contract tests' repository.
    static func newStore(_ directory: TemporaryDirectory) throws -> (path: String, writer: MirrorStore, repositoryID: Int64) {
        let path = directory.path("store.sqlite")
        let writer = try MirrorStore(path: path)
        let repository = try writer.adopt(StoreFixtures.identity, requestedAs: StoreFixtures.identity.fullName)
        return (path, writer, repository.id)
    }

    /// The newest `limit` commits of an author by every access path the reader has.
    static func byAuthor(_ name: String, limit: Int?, _ path: String) throws -> [[String]] {
        let reader = try MirrorReader(path: path)
        var filter = CommitFilter()
        filter.authors = [name]
        filter.limit = limit
        return try QueryStrategy.allCases.map { strategy in
            var shas: [String] = []
            try reader.forEachCommit(matching: filter, strategy: strategy) { shas.append($0.sha) }
            return shas
        }
    }

    static func expectedByAuthor(_ name: String, limit: Int?, in commits: [Commit]) -> [String] {
        let newestFirst = commits.filter { $0.author.identity.name == name }.sorted { $0.committer.date > $1.committer.date }.map(\.sha)
        return Array(newestFirst.prefix(limit ?? newestFirst.count))
    }

    @Test func aFirstLoadBuildsTheIndexesAtTheEndAndQueriesAnswerMeanwhile() async throws {
        let directory = try TemporaryDirectory()
        let (path, writer, repositoryID) = try Self.newStore(directory)
        let migrated = try Self.indexes(path)
        #expect(migrated.contains { $0.hasPrefix("commits_author_id: CREATE INDEX commits_author_id ON commits") })
        let commits = Self.commits(600)
        var duringLoad: [Bool] = []
        _ = try await writer.withBatches(limits: BatchLimits(maximumCommits: 200)) { batches in
            for start in stride(from: 0, to: commits.count, by: 200) {
                _ = try batches.storeFromGit(Array(commits[start..<start + 200]), repositoryID: repositoryID)
                duringLoad.append(try Self.hasIndex("commits_author_id", path))
                // A reader between two batches: the walks that name their index cannot run.
                let stored = Array(commits[0..<start + 200])
                for limit in [nil, 5] as [Int?] {
                    let expected = Self.expectedByAuthor("Lin", limit: limit, in: stored)
                    #expect(try Self.byAuthor("Lin", limit: limit, path).allSatisfy { $0 == expected }, "after \(start + 200)")
                }
            }
        }
        #expect(duringLoad == [false, false, false], "the indexes are built once, after the pages")
        #expect(try Self.indexes(path) == migrated)
        #expect(try MirrorReader(path: path).queryPlanDescription(CommitFilter(author: "Lin", limit: 5)) == "author_id index × 1")
        for limit in [nil, 5] as [Int?] {
            let expected = Self.expectedByAuthor("Lin", limit: limit, in: commits)
            #expect(try Self.byAuthor("Lin", limit: limit, path).allSatisfy { $0 == expected })
        }
        let reader = try MirrorReader(path: path)
        try PostgreSQLBulkPageTablesTests.expectExactGreps(reader, commits)
        let check = try reader.check()
        #expect(check.integrity == ["ok"] && check.foreignKeyViolations.isEmpty)
    }
}
