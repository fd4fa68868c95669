import Foundation
import MirrorPostgreSQL
import MirrorTestSupport
import PostgreSQL
import Testing

@testable import MirrorCore
@testable import MirrorSQLite
import SQLite

/// `check` compares the totals `author_commit_counts` keeps (which `show` and
/// `authors` read instead of counting) with the commits, on both backends: a
/// total off by one, a total missing, and a total for an author with no commits
/// are each damage.
@Suite struct AuthorCountCheckTests {
    static let tamperings = [
        "UPDATE author_commit_counts SET commits = commits + 1 WHERE author_id = (SELECT min(author_id) FROM commits)",
        "DELETE FROM author_commit_counts WHERE author_id = (SELECT max(author_id) FROM commits)",
        // Linus (SQLite) and Grace (PostgreSQL) commit, but author nothing.
        """
        INSERT INTO author_commit_counts (author_id, commits)
        SELECT id, 3 FROM authors WHERE id NOT IN (SELECT author_id FROM commits) ORDER BY id LIMIT 1
        """,
    ]

    @Test func aSQLiteStoreCountedWrongIsDamaged() throws {
        let directory = try TemporaryDirectory()
        let store = try MirrorStore(path: directory.path("commits.sqlite"))
        let payloads = (1...12).reversed().map { n in
            QueryFixtures.payload(
                sha: QueryFixtures.sha(n), message: "change \(n)",
                author: n % 3 == 0 ? ("Ada", "ada@example.com") : ("Grace", "grace@example.com"),
                committer: ("Linus", "linus@example.com"),
                date: String(format: "2024-01-%02dT12:00:00Z", n))
        }
        try QueryFixtures.fill(store, payloads, repository: "o/r")
        let reader = try MirrorReader(path: store.path)
        #expect(try reader.check().miscountedAuthors == 0)
        #expect(try !reader.check().isDamaged)
        for (number, tampering) in Self.tamperings.enumerated() {
            try store.db.execute(tampering)
            let check = try reader.check()
            #expect(check.miscountedAuthors == number + 1, "\(tampering)")
            #expect(check.isDamaged)
        }
    }

    @Test func aPostgreSQLStoreCountedWrongIsDamaged() async throws {
        let uri = try await PostgreSQLServer.shared().createDatabase()
        let commits = (0..<12).map { n in
            StoreFixtures.commit(n, parents: n == 0 ? [] : [n - 1], author: n % 3 == 0 ? "Ada" : "Bob")
        }
        _ = try await PostgreSQLBulkPageTablesTests.stored(commits, in: uri)
        let reader = try StoreLocation(uri).openCommitReader()
        #expect(try reader.check().miscountedAuthors == 0)
        #expect(try !reader.check().isDamaged)
        let observer = try PostgreSQLConnection(uri: uri)
        for (number, tampering) in Self.tamperings.enumerated() {
            try observer.execute(tampering)
            let check = try reader.check()
            #expect(check.miscountedAuthors == number + 1, "\(tampering)")
            #expect(check.isDamaged)
        }
    }
}
