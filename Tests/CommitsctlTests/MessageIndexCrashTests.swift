import MirrorTestSupport
import Foundation
import MirrorCore
import MirrorSQLite
import SQLite
import Testing

/// Issue #30 goal 2: a writer killed while the message index catches up loses
/// nothing. The chunks it committed stay, with their watermark; `--grep`
/// answers exactly meanwhile; the next writer resumes from the watermark.
@Suite struct MessageIndexCrashTests {
    static let commits = 200_000
    /// Every seventh message mentions the parser.
    static let parserMessages = commits / 7

    @Test func aKillDuringTheCatchUpLosesNothingAndTheNextWriterResumes() async throws {
        let directory = try TemporaryDirectory()
        let db = directory.path("commits.sqlite")
        try Self.storeLaggingHistory(at: db)
        #expect(try Self.watermark(db) == 1)

        // Any writer resumes the catch-up when it opens the store: here an import.
        let page = directory.path("page.ndjson")
        try Data(Self.onePage.utf8).write(to: URL(fileURLWithPath: page))
        let importing = try CapturedProcess(
            "commitsctl", ["import", "lag/filler", page, "--db", db], environment: [:], logDirectory: directory.url, name: "import")
        // Stopped once a chunk is indexed and before the last one is, then killed. Watched
        // from a thread of its own: a busy cooperative pool must not make it look too late.
        let pid = importing.pid
        await onThread {
            _ = waitUntilBlocking(timeout: .seconds(120), every: .milliseconds(2)) {
                ((try? Self.watermark(db)) ?? 1) > 1 || !Self.isAlive(pid)
            }
            kill(pid, SIGSTOP)
        }
        #expect(importing.process.isRunning, "the catch-up ended before it could be stopped: \(importing.stderr)")
        importing.kill(SIGKILL)
        _ = await onThread { importing.wait() }

        // What it committed stays: the index holds exactly the commits up to the watermark.
        let watermark = try Self.watermark(db)
        #expect(watermark > 1 && watermark < Self.commits + 1, "watermark \(watermark)")
        #expect((watermark - 1) % MirrorStore.messageIndexChunk == 0, "whole chunks only: \(watermark)")
        #expect(try Self.indexed(db) == Array(1...watermark).count)
        #expect(try Self.indexedBeyondWatermark(db) == 0)
        // Every answer exact meanwhile, through the commitsctl a user runs.
        try await Self.expectExactAnswers(db)
        let check = try await run("commitsctl", ["check", "--db", db])
        #expect(check.status == 0, "\(check.stdout)\(check.stderr)")
        let behind = Self.commits + 1 - watermark
        #expect(check.stdout.contains("message index: ok; \(behind) newer commits not indexed yet"), "\(check.stdout)")

        // The next writer resumes and finishes.
        let again = try await run("commitsctl", ["import", "lag/filler", page, "--db", db])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(try Self.watermark(db) == Self.commits + 1)
        #expect(try Self.indexed(db) == Self.commits + 1)
        try Connection(path: db).execute("INSERT INTO commits_fts (commits_fts, rank) VALUES ('integrity-check', 1)")
        try await Self.expectExactAnswers(db)
    }

    static func expectExactAnswers(_ db: String) async throws {
        // 1234, 12340–12349 and 123400–123499; one; every seventh.
        for (needle, expected) in [("NUMBER 1234", 111), ("number 199999 ", 1), ("parser", parserMessages)] {
            let found = try await run("commitsctl", ["query", "--grep", needle, "--db", db])
            #expect(found.status == 0, "\(found.stderr)")
            #expect(found.stdout.split(separator: "\n").count == expected, "--grep \(needle)")
        }
        let limited = try await run("commitsctl", ["query", "--grep", "parser", "-n", "5", "--db", db])
        #expect(limited.stdout.split(separator: "\n").count == 5)
    }

    /// One commit stored as a sync stores it, then `commits` more beyond the
    /// message index's watermark, as a writer killed before its catch-up leaves them.
    static func storeLaggingHistory(at db: String) throws {
        let store = try MirrorStore(path: db)
        let repository = try store.ensureRepository(named: RepositoryName(parsing: "lag/filler")!)
        let seed = try SavedResponses.decode(Array(onePage.utf8), source: "fixture")
        _ = try store.importBatch(seed, repositoryID: repository.id)
        let connection = try Connection(path: db)
        try connection.transaction {
            try connection.execute(
                """
                WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
                INSERT INTO commits (sha, message, author_id, author_date, committer_id, committer_date, parent_count)
                SELECT printf('%040x', i), 'commit number ' || i || ' ' ||
                       CASE WHEN i % 7 = 0 THEN 'fixes the parser' ELSE 'tidies the docs' END,
                       c.author_id, c.author_date, c.committer_id, c.committer_date, 0
                FROM n, (SELECT * FROM commits WHERE id = 1) c
                """, [commits])
            try connection.execute(
                """
                INSERT INTO repository_commits (repository_id, commit_id, change_seq)
                SELECT ?, id, id FROM commits WHERE id > 1
                """, [repository.id])
            try connection.execute("UPDATE change_counter SET last = (SELECT max(id) FROM commits)")
        }
    }

    /// The seed commit: its message says neither word the needles look for.
    static let onePage = """
        {"sha":"\(String(repeating: "e", count: 40))","commit":{"author":{"name":"Filler Person","email":"filler@example.com","date":"2024-01-01T00:00:00Z"},"committer":{"name":"Filler Person","email":"filler@example.com","date":"2024-01-01T00:00:00Z"},"message":"seed"},"parents":[]}

        """

    /// Running or stopped: not gone, and not a zombie waiting to be reaped.
    static func isAlive(_ pid: Int32) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let state = stat.split(separator: ")").last?.split(separator: " ").first
        else { return false }
        return state != "Z" && state != "X"
    }

    static func watermark(_ db: String) throws -> Int {
        try Connection(path: db).scalarInt("SELECT through_id FROM message_index_coverage") ?? -1
    }

    static func indexed(_ db: String) throws -> Int {
        try Connection(path: db).scalarInt("SELECT count(*) FROM commits_fts_docsize") ?? -1
    }

    static func indexedBeyondWatermark(_ db: String) throws -> Int {
        try Connection(path: db).scalarInt(
            "SELECT count(*) FROM commits_fts_docsize WHERE id > (SELECT through_id FROM message_index_coverage)") ?? -1
    }
}
