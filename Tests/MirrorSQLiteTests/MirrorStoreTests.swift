import MirrorTestSupport
import Foundation
import SQLite
import Testing
@testable import MirrorCore
@testable import MirrorSQLite
import MirrorPostgreSQL

@Suite struct MirrorStoreTests {
    let directory: TemporaryDirectory
    let store: MirrorStore

    init() throws {
        directory = try TemporaryDirectory()
        store = try MirrorStore(path: directory.path("nested/dir/commits.sqlite"))
    }

    func payloads(_ elements: [String]) throws -> [Commit] {
        try PayloadDecoder().decodeCommits(PayloadFixtures.page(elements))
    }

    /// Stores `commits` as one page of a fresh walk, like the sync engine does.
    @discardableResult
    func storePage(_ commits: [Commit], in repository: String) throws -> PageOutcome {
        let repo = try store.ensureRepository(named: RepositoryName(parsing: repository)!)
        try store.recordAttempt(repositoryID: repo.id, branch: "main")
        let walk = try store.beginWalk(repositoryID: repo.id, branch: "main", headSHA: commits[0].sha)
        return try store.store(page: commits, repositoryID: repo.id, walk: walk, nextURL: nil, pagesTotal: nil).outcome
    }

    /// Temporary tables and statement journals in files behind bounded caches
    /// (1 = FILE): held in memory, a long history's branch walk and message
    /// index catch-up grew the writer with the history's length.
    @Test func theWriterKeepsTemporaryDataInFiles() throws {
        #expect(try store.db.pragma("temp_store") == "1")
    }

    /// Schema version 12: fewer, larger merges of the message index's segments (Benchmarks/git-clone.sh).
    @Test func theMessageIndexMergesSixteenSegmentsAtATime() throws {
        #expect(try store.db.scalarInt("SELECT v FROM commits_fts_config WHERE k = 'automerge'") == 16)
    }

    @Test func createsTheDirectoryAndTheSchema() throws {
        #expect(FileManager.default.fileExists(atPath: directory.path("nested/dir/commits.sqlite")))
        #expect(try MirrorReader(path: store.path).integrityCheck() == "ok")
        #expect(try store.db.pragma("journal_mode") == "wal")
    }

    @Test func upsertChangesTheMessageWithoutDuplicating() throws {
        let sha = PayloadFixtures.sha(7)
        let first = try storePage(payloads([PayloadFixtures.element(sha: sha, message: "Old subject")]), in: "o/r")
        #expect(first.added == 1 && first.updated == 0)
        let second = try storePage(payloads([PayloadFixtures.element(sha: sha, message: "New subject\n\nWith a body")]), in: "o/r")
        #expect(second.added == 0 && second.updated == 1)
        let unchanged = try storePage(payloads([PayloadFixtures.element(sha: sha, message: "New subject\n\nWith a body")]), in: "o/r")
        #expect(unchanged.added == 0 && unchanged.updated == 0)
        #expect(try store.commitCount() == 1)
        #expect(try store.db.prepare("SELECT message FROM commits").first { $0.string(0) } == "New subject\n\nWith a body")
    }

    /// New messages join the search index when it catches up (a lone page at
    /// once, a batch when its scope ends); a message changed before then (the
    /// same sha twice, as a hostile server may send it) must leave the index
    /// exact, in a batch and in a single page, and be found meanwhile.
    @Test(arguments: [true, false])
    func aMessageChangedBeforeItsBatchCommitsLeavesTheIndexExact(batched: Bool) throws {
        let sha = PayloadFixtures.sha(9)
        let twice = try payloads([
            PayloadFixtures.element(sha: PayloadFixtures.sha(8), message: "Another commit"),
            PayloadFixtures.element(sha: sha, message: "First wording"),
        ])
        let again = try payloads([PayloadFixtures.element(sha: sha, message: "Second wording")])
        if batched { try store.beginBatch() }
        _ = try storePage(twice + again, in: "o/r")
        try store.commitBatch()
        #expect(try store.messageIndexLag() == (batched ? 2 : 0))
        #expect(try MirrorReader(path: store.path).commits(matching: CommitFilter(grep: "WORDING")).map(\.sha) == [sha])
        #expect(try MirrorReader(path: store.path).commits(matching: CommitFilter(grep: "first")).isEmpty)
        try store.catchUpMessageIndex()
        #expect(try store.messageIndexLag() == 0)
        try store.db.execute("INSERT INTO commits_fts (commits_fts) VALUES ('integrity-check')")
        let found = try store.db.prepare("SELECT rowid FROM commits_fts WHERE commits_fts MATCH '\"wording\"'").map { $0.int64(0) }
        #expect(found.count == 1)
        #expect(try store.db.prepare("SELECT count(*) FROM commits_fts WHERE commits_fts MATCH '\"first\"'").first { $0.int(0) } == 0)
        #expect(try MirrorReader(path: store.path).check().unindexedMessages == 0)
    }

    @Test func oneSHAInTwoRepositoriesIsStoredOnceAndBelongsToBoth() throws {
        let shared = try payloads([PayloadFixtures.element(sha: PayloadFixtures.sha(1))])
        #expect(try storePage(shared, in: "upstream/project").added == 1)
        #expect(try storePage(shared, in: "fork/project").added == 1)
        #expect(try store.commitCount() == 1)
        let upstream = try #require(try store.repository(named: RepositoryName(parsing: "upstream/project")!))
        let fork = try #require(try store.repository(named: RepositoryName(parsing: "fork/project")!))
        #expect(try store.commitCount(repositoryID: upstream.id) == 1)
        #expect(try store.commitCount(repositoryID: fork.id) == 1)
    }

    @Test func authorsAreUniqueByNameAndEmailAndKeepTheirLogin() throws {
        try storePage(
            payloads([
                PayloadFixtures.element(sha: PayloadFixtures.sha(1), authorName: "Zoë", authorEmail: "z@example.com", login: "zoe"),
                PayloadFixtures.element(sha: PayloadFixtures.sha(2), authorName: "Zoë", authorEmail: "z@example.com", login: nil),
                PayloadFixtures.element(sha: PayloadFixtures.sha(3), authorName: "Zoë", authorEmail: "other@example.com", login: nil),
            ]), in: "o/r")
        let rows = try store.db.prepare("SELECT name, email, login FROM authors ORDER BY email").map {
            [$0.string(0), $0.string(1), $0.optionalString(2) ?? "-"]
        }
        #expect(rows == [["Zoë", "other@example.com", "-"], ["Zoë", "z@example.com", "zoe"]])
    }

    @Test func nullAuthorStillStoresTheGitSignature() throws {
        try storePage(
            payloads([PayloadFixtures.element(sha: PayloadFixtures.sha(1), authorName: "No Account", authorField: "null")]), in: "o/r")
        let row = try store.db.prepare("SELECT a.name, a.login FROM commits c JOIN authors a ON a.id = c.author_id")
            .first { ($0.string(0), $0.optionalString(1)) }
        #expect(row?.0 == "No Account")
        #expect(row?.1 == nil)
    }

    @Test func parentsAndMergesAreRecorded() throws {
        let merge = PayloadFixtures.element(sha: PayloadFixtures.sha(3), parents: [PayloadFixtures.sha(2), PayloadFixtures.sha(1)])
        try storePage(payloads([merge]), in: "o/r")
        #expect(try store.db.scalarInt("SELECT parent_count FROM commits") == 2)
        let parents = try store.db.prepare("SELECT parent_sha FROM commit_parents ORDER BY position").map { $0.string(0) }
        #expect(parents == [PayloadFixtures.sha(2), PayloadFixtures.sha(1)])
    }

    @Test func aPageThatFailsHalfwayLeavesNothingBehind() throws {
        let repo = try store.ensureRepository(named: RepositoryName(parsing: "o/r")!)
        try store.recordAttempt(repositoryID: repo.id, branch: "main")
        let walk = try store.beginWalk(repositoryID: repo.id, branch: "main", headSHA: PayloadFixtures.sha(1))
        // A trigger that fails on the second commit stands in for a write error mid-page.
        try store.db.execute(
            """
            CREATE TEMP TRIGGER fail_second BEFORE INSERT ON commits WHEN NEW.sha = '\(PayloadFixtures.sha(2))'
            BEGIN SELECT RAISE(ABORT, 'injected failure'); END
            """)
        let page = try payloads([
            PayloadFixtures.element(sha: PayloadFixtures.sha(1)), PayloadFixtures.element(sha: PayloadFixtures.sha(2)),
        ])
        #expect(throws: (any Error).self) {
            try store.store(page: page, repositoryID: repo.id, walk: walk, nextURL: "https://next", pagesTotal: 5).outcome
        }
        #expect(try store.commitCount() == 0)
        #expect(try store.pendingWalks(repositoryID: repo.id, branch: "main").first?.pagesDone == 0)
    }

    @Test func frontierTracksParentsNotYetStored() throws {
        let repo = try store.ensureRepository(named: RepositoryName(parsing: "o/r")!)
        try store.recordAttempt(repositoryID: repo.id, branch: "main")
        let walk = try store.beginWalk(repositoryID: repo.id, branch: "main", headSHA: PayloadFixtures.sha(4))
        // 4 merges 3 and 2; 3 -> 1; 2 -> 1. First page holds 4 and 3: missing 2 and 1.
        let first = try payloads([
            PayloadFixtures.element(sha: PayloadFixtures.sha(4), parents: [PayloadFixtures.sha(3), PayloadFixtures.sha(2)]),
            PayloadFixtures.element(sha: PayloadFixtures.sha(3), parents: [PayloadFixtures.sha(1)]),
        ])
        #expect(try store.store(page: first, repositoryID: repo.id, walk: walk, nextURL: "n", pagesTotal: nil).outcome.frontier == 2)
        let second = try payloads([
            PayloadFixtures.element(sha: PayloadFixtures.sha(2), parents: [PayloadFixtures.sha(1)]),
            PayloadFixtures.element(sha: PayloadFixtures.sha(1)),
        ])
        #expect(try store.store(page: second, repositoryID: repo.id, walk: walk, nextURL: nil, pagesTotal: nil).outcome.frontier == 0)
    }

    @Test func readOnlyOpenOfAMissingStoreSaysWhatToDo() throws {
        let path = directory.path("absent.sqlite")
        #expect {
            _ = try MirrorReader(path: path)
        } throws: { error in
            "\(error)" == "no store at \(path)"  // the fact; the executables add what to do
        }
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test func aFileThatIsNotAStoreIsRefusedUntouched() throws {
        let path = directory.path("notes.txt")
        let content = Data(String(repeating: "hello\n", count: 500).utf8)
        try content.write(to: URL(fileURLWithPath: path))
        #expect {
            _ = try MirrorStore(path: path)
        } throws: { error in
            "\(error)" == "\(path) is not a commits-mirror store (not an SQLite database)"
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == content)
    }

    @Test func aStoreFromANewerSchemaIsRefused() throws {
        try store.db.execute("INSERT INTO schema_migrations (version, name) VALUES (999, 'future')")
        #expect {
            _ = try MirrorStore(path: directory.path("nested/dir/commits.sqlite"))
        } throws: { error in
            "\(error)".contains("schema version 999") && "\(error)".contains("upgrade commits-mirror")
        }
    }

    @Test func storeLocationPrecedence() throws {
        #expect(try StoreLocation.resolve(explicit: "/x.sqlite", environment: ["COMMITS_DB": "/y"]) == .sqliteFile("/x.sqlite"))
        #expect(try StoreLocation.resolve(explicit: nil, environment: ["COMMITS_DB": "/y", "XDG_DATA_HOME": "/d"]) == .sqliteFile("/y"))
        #expect(
            try StoreLocation.resolve(explicit: nil, environment: ["XDG_DATA_HOME": "/d"])
                == .sqliteFile("/d/commits-mirror/commits.sqlite"))
        #expect(
            try StoreLocation.resolve(explicit: nil, environment: ["HOME": "/home/u"])
                == .sqliteFile("/home/u/.local/share/commits-mirror/commits.sqlite"))
    }

    /// A location is decided once, where it is made: a PostgreSQL URI names a
    /// database (refused with a password in it), another `scheme://` is refused
    /// there, from any source, never taken as a path.
    @Test func aDatabaseURIIsDecidedWhereTheLocationIsMade() throws {
        TestStoreDrivers.register()
        for text in ["postgresql://mirror@db.example/mirror", "postgres://db/mirror"] {
            #expect(try StoreLocation(text) == .postgreSQL(text))
            #expect(try StoreLocation.resolve(explicit: nil, environment: ["COMMITS_DB": text]) == .postgreSQL(text))
        }
        for text in ["mysql://db/x", "postgresql://mirror:secret@db/mirror", "postgres://db/mirror?password=secret"] {
            #expect(throws: (any Error).self) { try StoreLocation(text) }
            #expect(throws: (any Error).self) { try StoreLocation.resolve(explicit: nil, environment: ["COMMITS_DB": text]) }
        }
        #expect(throws: StoreError.self) { try StoreLocation("") }
        // A colon alone is a file name, as it always was.
        #expect(try StoreLocation("./odd:name.sqlite") == .sqliteFile("./odd:name.sqlite"))
    }
}
