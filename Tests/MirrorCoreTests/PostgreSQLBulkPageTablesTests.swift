import Foundation
import MirrorPostgreSQL
import MirrorTestSupport
import PostgreSQL
import Testing

@testable import MirrorCore

/// The PostgreSQL page tables as schema version 2 shapes them
/// (PostgreSQLSchema+BulkPages.swift): messages wait in the trigram index's
/// pending list and are still found; deletions cascade without foreign keys;
/// `check` finds a row naming nothing; an explicit removal waits for a page in flight.
@Suite struct PostgreSQLBulkPageTablesTests {
    static let needles = ["fix", "Überprüfung", "ß", "crash in", "日本語", "release 5.10"]

    /// Commits whose messages carry the needles in varied case, and many that carry none.
    static func commits(_ count: Int) -> [Commit] {
        (0..<count).map { n in
            let needle = needles[n % needles.count]
            let message = n % 3 == 0 ? "Commit \(n): \(n % 2 == 0 ? needle.uppercased() : needle) here" : "commit \(n)"
            return StoreFixtures.commit(n, parents: n == 0 ? [] : [n - 1], message: message)
        }
    }

    /// What `--grep` must answer, computed here: a case-insensitive substring test.
    static func expected(_ commits: [Commit], grep: String) -> Set<String> {
        Set(commits.filter { $0.message.lowercased().contains(grep.lowercased()) }.map(\.sha))
    }

    /// Every needle finds exactly the commits whose messages hold it.
    static func expectExactGreps(
        _ reader: any MirrorReading, _ commits: [Commit], sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        for needle in needles {
            #expect(try grep(reader, needle) == expected(commits, grep: needle), "\(needle)", sourceLocation: sourceLocation)
        }
    }

    static func grep(_ reader: any MirrorReading, _ needle: String) throws -> Set<String> {
        var found = Set<String>()
        try reader.forEachCommit(matching: CommitFilter(grep: needle)) { found.insert($0.sha) }
        return found
    }

    static func pendingPages(_ connection: PostgreSQLConnection) throws -> Int {
        try connection.execute("CREATE EXTENSION IF NOT EXISTS pgstattuple")
        return try connection.execute("SELECT pending_pages FROM pgstatginindex('commits_message_trgm')").int(0, 0) ?? -1
    }

    /// `commits` stored in pages of 100. `seeded`: a commit of its own is stored
    /// first, so the pages go into a store that is not empty and update the
    /// indexes as they go (a load into an empty store builds them at the end:
    /// PostgreSQLBulkLoadIndexesTests).
    static func stored(_ commits: [Commit], in uri: String, seeded: Bool = false) async throws -> (any MirrorWriter, Int64) {
        TestStoreDrivers.register()
        let writer = try StoreLocation(uri).openSyncWriter()
        let repository = try writer.adopt(StoreFixtures.identity, requestedAs: StoreFixtures.identity.fullName)
        if seeded {
            let seed = StoreFixtures.commit(999_999, parents: [], message: "seed")
            _ = try await writer.withBatches(limits: BatchLimits()) { batches in
                try batches.storeFromGit([seed], repositoryID: repository.id)
            }
        }
        _ = try await writer.withBatches(limits: BatchLimits(maximumCommits: 200)) { batches in
            for start in stride(from: 0, to: commits.count, by: 100) {
                _ = try batches.storeFromGit(
                    Array(commits[start..<min(start + 100, commits.count)]), repositoryID: repository.id)
            }
        }
        return (writer, repository.id)
    }

    @Test func grepFindsEveryMessageWhileTheIndexLagsAndAfterItCatchesUp() async throws {
        let uri = try await PostgreSQLServer.shared().createDatabase()
        // Fewer than a catch-up's worth: the messages stay in the pending list.
        let commits = Self.commits(600)
        _ = try await Self.stored(commits, in: uri, seeded: true)
        let observer = try PostgreSQLConnection(uri: uri)
        #expect(try Self.pendingPages(observer) > 0)
        let reader = try StoreLocation(uri).openCommitReader()
        for needle in Self.needles + ["commit 59", "no such text"] {
            #expect(try Self.grep(reader, needle) == Self.expected(commits, grep: needle), "lagging, \(needle)")
        }

        try observer.execute("SELECT gin_clean_pending_list('commits_message_trgm'::regclass)")
        #expect(try Self.pendingPages(observer) == 0)
        for needle in Self.needles + ["commit 59", "no such text"] {
            #expect(try Self.grep(reader, needle) == Self.expected(commits, grep: needle), "merged, \(needle)")
        }
    }

    @Test func aSyncsWorthOfCommitsIsMergedIntoTheIndexWhenItsPagesAreDone() async throws {
        let uri = try await PostgreSQLServer.shared().createDatabase()
        let commits = Self.commits(1_500)
        _ = try await Self.stored(commits, in: uri, seeded: true)
        let observer = try PostgreSQLConnection(uri: uri)
        #expect(try Self.pendingPages(observer) == 0)
        let reader = try StoreLocation(uri).openCommitReader()
        for needle in Self.needles {
            #expect(try Self.grep(reader, needle) == Self.expected(commits, grep: needle), "\(needle)")
        }
    }

    @Test func purgingARepositoryLeavesNoRowNamingItsCommits() async throws {
        let uri = try await PostgreSQLServer.shared().createDatabase()
        let commits = (0..<300).map { n in
            StoreFixtures.commit(
                n, parents: n == 0 ? [] : [n - 1], message: "commit \(n)\n\nCo-authored-by: Co Author <co@example.com>")
        }
        #expect(commits.allSatisfy { $0.coAuthors.count == 1 })
        let (writer, repositoryID) = try await Self.stored(commits, in: uri)
        let removal = try #require(writer as? any HistoryRemoval)
        let outcome = try removal.removeAndPurge(repositoryID: repositoryID, reason: "test")
        #expect(outcome.deleted == 300)

        let observer = try PostgreSQLConnection(uri: uri)
        for table in ["commits", "commit_parents", "commit_coauthors", "repository_commits"] {
            #expect(try observer.execute("SELECT count(*) FROM \(table)").int(0, 0) == 0, "\(table)")
        }
        #expect(try StoreLocation(uri).openCommitReader().check().foreignKeyViolations.isEmpty)
    }

    @Test func checkReportsARowThatNamesNothing() async throws {
        let uri = try await PostgreSQLServer.shared().createDatabase()
        _ = try await Self.stored(Self.commits(10), in: uri)
        let reader = try StoreLocation(uri).openCommitReader()
        #expect(try reader.check().foreignKeyViolations.isEmpty)

        let observer = try PostgreSQLConnection(uri: uri)
        try observer.execute("INSERT INTO commit_parents (commit_id, position, parent_sha) VALUES (987654, 0, 'f00d')")
        try observer.execute("UPDATE commits SET committer_id = 555555 WHERE id = (SELECT min(id) FROM commits)")
        let check = try reader.check()
        #expect(
            check.foreignKeyViolations == [
                "commits.committer_id → authors: 1 row naming none", "commit_parents.commit_id → commits: 1 row naming none",
            ])
        #expect(check.isDamaged)
    }

    @Test func pruneWaitsForAPageInFlight() async throws {
        let uri = try await PostgreSQLServer.shared().createDatabase()
        let (writer, _) = try await Self.stored(Self.commits(20), in: uri)
        // A page between its read of what is stored and its writes: it holds the page tables' row locks.
        let page = try PostgreSQLConnection(uri: uri)
        try page.execute("BEGIN")
        try page.execute("LOCK TABLE commits, repository_commits IN ROW EXCLUSIVE MODE")
        let removal = try #require(writer as? any HistoryRemoval)
        nonisolated(unsafe) let unsafeRemoval = removal
        let pruning = Task.detached { try unsafeRemoval.pruneOffBranch(repositoryID: nil) }

        let observer = try PostgreSQLConnection(uri: uri)
        var waiting = false
        for _ in 0..<200 where !waiting {
            waiting =
                try observer.execute(
                    """
                    SELECT count(*) > 0 FROM pg_locks l JOIN pg_class c ON c.oid = l.relation
                    WHERE NOT l.granted AND c.relname IN ('commits', 'repository_commits')
                    """
                ).bool(0, 0) ?? false
            if !waiting { try await Task.sleep(for: .milliseconds(25)) }
        }
        #expect(waiting, "prune should wait for the page's transaction")
        try page.execute("COMMIT")
        #expect(try await pruning.value == 0)
    }
}
