import MirrorTestSupport
import Foundation
import Testing
@testable import MirrorCore
@testable import MirrorSQLite
import SQLite

/// `commitsctl query` as a process: filters, literal input, validation, and
/// reading while another process writes.
@Suite struct QueryCommandTests {
    let directory: TemporaryDirectory
    let db: String

    init() throws {
        (directory, db) = try QueryCLIFixture.fresh("commits.sqlite")
    }

    func shas(_ arguments: [String], sourceLocation: SourceLocation = #_sourceLocation) async throws -> [String] {
        let result = try await commitsctl(["query", "--db", db, "--format", "ndjson"] + arguments)
        #expect(result.status == 0, "\(result.stderr)", sourceLocation: sourceLocation)
        return try result.lines.map {
            let object = try JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any]
            return String((object["sha"] as! String).prefix(4))
        }
    }

    @Test func filtersCombineWithAnd() async throws {
        #expect(try await shas([]) == ["aaaa", "aaaa", "bbbb", "cccc", "dddd"])
        #expect(try await shas(["--author", "ADA"]) == ["aaaa", "dddd"])
        #expect(try await shas(["--author", "lovelace <ada@"]) == ["aaaa", "dddd"])
        #expect(try await shas(["--committer", "github"]) == ["aaaa"])
        #expect(try await shas(["--grep", "FIX"]) == ["aaaa"])
        #expect(try await shas(["--grep", "fix", "--invert-grep", "--no-merges"]) == ["bbbb", "cccc", "dddd"])
        #expect(try await shas(["--merges"]) == ["aaaa"])
        #expect(try await shas(["--repo", "acme/fork"]) == ["dddd"])
        #expect(try await shas(["--author", "ada", "--repo", "acme/widgets", "-n", "1"]) == ["aaaa"])
        #expect(try await shas(["--grep", "幅の広い"]) == ["bbbb"])
        #expect(try await shas(["--author", "zoë ü"]) == ["aaaa"])
    }

    @Test func datesAcceptISOAndRelativeForms() async throws {
        #expect(try await shas(["--since", "2024-03-02", "--until", "2024-03-04"]) == ["aaaa", "bbbb", "cccc"])
        #expect(try await shas(["--since", "2024-03-04T09:30:00Z"]) == ["aaaa", "aaaa"])
        #expect(try await shas(["--until", "2024-03-01T23:00:00+01:00"]) == ["dddd"])
        #expect(try await shas(["--since", "100 years ago"]).count == 5)
        #expect(try await shas(["--since", "yesterday"]).isEmpty)
        #expect(try await shas(["--since", "2.weeks.ago", "--until", "now"]).isEmpty)
    }

    /// Issue #5 acceptance 4: quotes, %, _ and \ are data, never SQL or patterns.
    @Test(arguments: [
        ("'; DROP TABLE commits; --", [String]()),
        ("%", ["dddd"]),
        ("0% l", ["dddd"]),
        ("_", ["dddd"]),
        ("l_m", ["dddd"]),
        (#"\"#, ["dddd"]),
        (#"a \ b"#, ["dddd"]),
        (#"""#, ["aaaa"]),
        (#""quotes""#, ["aaaa"]),
        ("'", []),
        ("*", []),
        ("fix*", []),
    ])
    func specialCharactersMatchLiterally(needle: String, expected: [String]) async throws {
        #expect(try await shas(["--grep", needle]) == expected, "--grep \(needle)")
        await #expect(
            try shas(["--author", needle]).isEmpty || needle == "%" || needle == "_" || needle == "'",
            "--author \(needle)")
        #expect(try await shas([]).count == 5, "the store is intact")
        let store = try MirrorReader(path: db)
        #expect(try MirrorReader(path: store.path).integrityCheck() == "ok")
        #expect(try store.commitCount() == 5)
    }

    @Test func contradictoryOrMalformedOptionsAreUsageErrors() async throws {
        let cases: [([String], String)] = [
            (["--merges", "--no-merges"], "--merges and --no-merges exclude each other"),
            (["--invert-grep"], "--invert-grep needs --grep TEXT"),
            (["--since", "soon"], "--since: cannot read 'soon' as a date"),
            (["--since", "2024-03-05", "--until", "2024-03-01"], "--since (2024-03-05T00:00:00Z) is after --until (2024-03-01T23:59:59Z)"),
            (["--repo", "not a repo"], "--repo 'not a repo' is not a repository name"),
            (["--limit=-1"], "--limit must be 0 or more"),
            (["--format", "xml"], "xml"),
        ]
        for (arguments, message) in cases {
            let result = try await commitsctl(["query", "--db", db] + arguments)
            #expect(result.status == 64, "\(arguments)")
            #expect(result.stderr.contains(message), "\(arguments): \(result.stderr)")
            #expect(result.stdout == "")
        }
    }

    @Test func anUnknownRepositoryOrStoreSaysWhatToDo() async throws {
        let repo = try await commitsctl(["query", "--db", db, "--repo", "acme/nothing"])
        #expect(repo.status == 1)
        #expect(
            repo.stderr
                == "commitsctl: error: the store \(db) holds no repository acme/nothing; `commitsctl stats` lists the mirrored ones, `commitsctl sync acme/nothing` adds it\n"
        )
        let missing = directory.path("absent.sqlite")
        let store = try await commitsctl(["authors", "--db", missing])
        #expect(store.status == 1)
        #expect(store.stderr.hasPrefix("commitsctl: error: no store at \(missing)"))
        #expect(!FileManager.default.fileExists(atPath: missing))
    }

    /// Issue #5 acceptance 5: a query process runs while this process holds a
    /// write transaction on the same store, neither waiting nor seeing it.
    @Test func queriesRunWhileAnotherProcessWrites() async throws {
        let writer = try MirrorStore(path: db)
        let repo = try #require(try writer.repository(named: RepositoryName(parsing: "acme/widgets")!))
        try writer.db.execute("BEGIN IMMEDIATE TRANSACTION")
        var pending = QueryCLIFixture.commits[0]
        pending.sha = "eeee666666666666666666666666666666666666"
        pending.message = "Written but not committed"
        pending.date = "2024-03-06T00:00:00Z"
        _ = try writer.upsert([MirrorCore.Commit(QueryCLIFixture.payload(pending))], repositoryID: repo.id)

        // A reader that needed the writer's lock would fail after the 5 s busy
        // timeout (the writer never commits meanwhile): exit 0 with the committed
        // rows, and "no such commit" rather than "locked", prove neither waited.
        #expect(try await shas([]) == ["aaaa", "aaaa", "bbbb", "cccc", "dddd"])
        #expect(try await shas(["--grep", "not committed"]).isEmpty)
        let show = try await commitsctl(["show", "eeee", "--db", db])
        #expect(show.status == 1)
        #expect(!show.stderr.contains("locked"), "\(show.stderr)")

        try writer.db.execute("COMMIT TRANSACTION")
        #expect(try await shas(["-n", "1"]) == ["eeee"])
        #expect(try await shas(["--grep", "not committed"]) == ["eeee"])
    }
}
