import MirrorTestSupport
import Foundation
import Testing
@testable import MirrorCore
@testable import MirrorSQLite
import SQLite

/// Inputs refused before anything is opened, sent or stored, through the real
/// binary, and a NUL in a message shown whole by every output format.
@Suite struct StrictInputCLITests {
    let directory: TemporaryDirectory
    init() throws { directory = try TemporaryDirectory() }
    var db: String { directory.path("commits.sqlite") }

    /// The first line of stderr (a usage error is one line, like every error).
    func firstLine(_ text: String) -> String { String(text.split(separator: "\n").first ?? "") }

    // MARK: - Names

    @Test(arguments: [
        (["sync", "./x"], "commitsctl: error: './x' is not a repository name; expected OWNER/NAME, e.g. swiftlang/swift-evolution"),
        (["sync", "../x"], "commitsctl: error: '../x' is not a repository name; expected OWNER/NAME, e.g. swiftlang/swift-evolution"),
        (
            ["sync", "o/..", "--branch", "main"],
            "commitsctl: error: 'o/..' is not a repository name; expected OWNER/NAME, e.g. swiftlang/swift-evolution"
        ),
        (
            ["sync", "o/r", "--branch", ".."],
            "commitsctl: error: --branch '..' is not a valid branch name: it contains '..'; expected a git branch name such as main or release/1.0"
        ),
        (
            ["sync", "o/r", "--branch", "a b"],
            "commitsctl: error: --branch 'a b' is not a valid branch name: it contains ' '; expected a git branch name such as main or release/1.0"
        ),
        (
            ["sync", "o/r", "--branch", "x.lock"],
            "commitsctl: error: --branch 'x.lock' is not a valid branch name: a component ends with '.lock'; expected a git branch name such as main or release/1.0"
        ),
        (
            ["sync", "o/r", "--branch", "a\nb"],
            "commitsctl: error: --branch 'a\\u{a}b' is not a valid branch name: it contains a control character; expected a git branch name such as main or release/1.0"
        ),
    ])
    func badNamesAreUsageErrorsAndNothingIsCreated(arguments: [String], expected: String) async throws {
        // An unreachable API: a refused name must not get as far as a request.
        let result = try await runBounded("commitsctl", arguments + ["--db", db, "--api-url", "http://127.0.0.1:1"], limit: .seconds(60))
        let finished = try #require(result)
        #expect(finished.status == 64)
        #expect(firstLine(finished.stderr) == expected)
        #expect(!FileManager.default.fileExists(atPath: db))
    }

    // MARK: - --db and --config that are not files

    @Test(arguments: [
        ["query", "--author", "x"], ["check"], ["status"], ["show", "abcd"], ["stats"],
        ["sync", "a/b", "--api-url", "http://127.0.0.1:1"],
    ])
    func aFIFOAsTheStoreIsRefusedWithoutBlocking(arguments: [String]) async throws {
        let fifo = directory.path("store.fifo")
        try makeFIFO(fifo)
        let result = try #require(
            try await runBounded("commitsctl", arguments + ["--db", fifo], limit: .seconds(60)),
            "commitsctl \(arguments[0]) blocked on the FIFO")
        #expect(result.status == 1)
        #expect(
            result.stderr
                == "commitsctl: error: the store path \(fifo) is a FIFO (named pipe), not a store file; point --db / $COMMITS_DB (or the configuration's store) at a store file or a path that does not exist yet\n"
        )
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path) == ["store.fifo"])
    }

    @Test(arguments: [["query", "--author", "x"], ["sync", "a/b", "--api-url", "http://127.0.0.1:1"]])
    func devicesAndDirectoriesAsTheStoreAreRefused(arguments: [String]) async throws {
        for (path, kind) in [("/dev/null", "a character device"), (directory.url.path, "a directory")] {
            let result = try #require(try await runBounded("commitsctl", arguments + ["--db", path], limit: .seconds(60)))
            #expect(result.status == 1)
            #expect(result.stderr.hasPrefix("commitsctl: error: the store path \(path) is \(kind), not a store file; "))
            #expect(result.stderr.split(separator: "\n").count == 1)
        }
        for suffix in ["-journal", "-wal", "-shm"] {
            #expect(!FileManager.default.fileExists(atPath: "/dev/null" + suffix))
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path).isEmpty)
    }

    @Test(arguments: [["sync"], ["status"], ["sync", "a/b", "--api-url", "http://127.0.0.1:1"]])
    func aFIFOAsTheConfigurationIsRefusedWithoutBlocking(arguments: [String]) async throws {
        let fifo = directory.path("config.fifo")
        try makeFIFO(fifo)
        let result = try #require(
            try await runBounded("commitsctl", arguments + ["--config", fifo, "--db", db], limit: .seconds(60)),
            "commitsctl \(arguments[0]) blocked on the FIFO")
        #expect(result.status == 2)
        #expect(
            result.stderr
                == "commitsctl: error: \(fifo): is a FIFO (named pipe), not a configuration file; expected a readable YAML file like config/commits-mirror.example.yaml\n"
        )
        #expect(!FileManager.default.fileExists(atPath: db))
    }

    @Test(arguments: [
        (
            ["query", "--db", ""],
            "commitsctl: error: --db is empty; give the path of the store file, or leave --db out for $COMMITS_DB or the default"
        ),
        (
            ["sync", "a/b", "--db", ""],
            "commitsctl: error: --db is empty; give the path of the store file, or leave --db out for $COMMITS_DB or the default"
        ),
        (["status", "--config", ""], "commitsctl: error: --config is empty; give the path of a configuration file, or leave --config out"),
        (["sync", "--config", ""], "commitsctl: error: --config is empty; give the path of a configuration file, or leave --config out"),
    ])
    func emptyPathsAreRefused(arguments: [String], expected: String) async throws {
        let result = try #require(
            try await runBounded(
                "commitsctl", arguments, limit: .seconds(60),
                environment: ["HOME": directory.url.path]))
        #expect(result.status == 64)
        #expect(firstLine(result.stderr) == expected)
    }

    @Test func anEmptyCOMMITS_DBMeansUnset() async throws {
        let result = try #require(
            try await runBounded(
                "commitsctl", ["query", "--author", "x"], limit: .seconds(60),
                environment: ["COMMITS_DB": "", "XDG_DATA_HOME": directory.url.path]))
        #expect(result.stderr.contains("no store at \(directory.path("commits-mirror/commits.sqlite"))"), "\(result.stderr)")
    }

    // MARK: - A NUL in a message

    static let message = "Subject\u{0}after the NUL\n\nBody\u{0}end"
    static let sha = "abcdef0123456789abcdef0123456789abcdef01"

    /// A store holding one commit whose message came through the decoder with `\u0000`.
    func storeWithANul() throws {
        let page = Array(
            #"""
            [{"sha":"\#(Self.sha)","commit":{"author":{"name":"Ada","email":"ada@example.com","date":"2024-01-02T03:04:05Z"},\#
            "committer":{"name":"Ada","email":"ada@example.com","date":"2024-01-02T03:04:05Z"},\#
            "message":"Subject\u0000after the NUL\n\nBody\u0000end","tree":{"sha":"\#(String(repeating: "e", count: 40))"}},\#
            "html_url":"https://github.com/o/r/commit/\#(Self.sha)","author":null,"committer":null,"parents":[]}]
            """#.utf8)
        let commits = try PayloadDecoder().decodeCommits(page)
        #expect(commits.first?.message == Self.message)
        let store = try MirrorStore(path: db)
        let repository = try store.ensureRepository(named: RepositoryName(parsing: "o/r")!)
        try store.db.transaction { _ = try store.upsert(commits, repositoryID: repository.id) }
    }

    func message(inJSON text: String) throws -> String? {
        let object = try JSONSerialization.jsonObject(with: Data(text.utf8))
        let record = (object as? [[String: Any]])?.first ?? (object as? [String: Any])
        return record?["message"] as? String
    }

    @Test func jsonFormatsCarryTheWholeMessage() async throws {
        try storeWithANul()
        let query = try #require(try await runBounded("commitsctl", ["query", "--db", db, "--format", "json"], limit: .seconds(60)))
        #expect(query.status == 0, "\(query.stderr)")
        #expect(query.stdout.contains(#""message": "Subject\u0000after the NUL\n\nBody\u0000end""#))
        #expect(try message(inJSON: query.stdout) == Self.message)
        #expect(!query.stdout.utf8.contains(0), "JSON output holds no raw NUL")

        let ndjson = try #require(try await runBounded("commitsctl", ["query", "--db", db, "--format", "ndjson"], limit: .seconds(60)))
        #expect(try message(inJSON: ndjson.stdout) == Self.message)

        let show = try #require(
            try await runBounded("commitsctl", ["show", String(Self.sha.prefix(8)), "--db", db, "--format", "json"], limit: .seconds(60)))
        #expect(show.status == 0, "\(show.stderr)")
        #expect(try message(inJSON: show.stdout) == Self.message)
    }

    @Test func textFormatsShowTheWholeMessage() async throws {
        try storeWithANul()
        let show = try #require(try await runBounded("commitsctl", ["show", Self.sha, "--db", db], limit: .seconds(60)))
        #expect(show.status == 0, "\(show.stderr)")
        #expect(show.stdout.contains("    Subject\u{FFFD}after the NUL\n\n    Body\u{FFFD}end\n"), "\(show.stdout.debugDescription)")

        for format in ["oneline", "table"] {
            let result = try #require(try await runBounded("commitsctl", ["query", "--db", db, "--format", format], limit: .seconds(60)))
            #expect(result.status == 0)
            #expect(result.stdout.contains("Subject\u{FFFD}after the NUL"), "\(format): \(result.stdout.debugDescription)")
        }

        let csv = try #require(try await runBounded("commitsctl", ["query", "--db", db, "--format", "csv"], limit: .seconds(60)))
        #expect(csv.stdout.contains("\"Subject\u{0}after the NUL\n\nBody\u{0}end\""), "CSV keeps the bytes: \(csv.stdout.debugDescription)")
    }
}
