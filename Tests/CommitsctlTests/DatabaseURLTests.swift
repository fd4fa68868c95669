import Foundation
import MirrorTestSupport
import Testing

/// Issue #25: `--db postgresql://…` used to create a directory `postgresql:`
/// (in the working directory) and an SQLite file inside it. Issue #26: a
/// `postgresql://` / `postgres://` URI names a PostgreSQL store; a password in
/// it, or any other `scheme://`, is refused with one line from every place a
/// store is named, and nothing is created.
@Suite struct DatabaseURLTests {
    let directory: TemporaryDirectory
    init() throws { directory = try TemporaryDirectory() }

    static let passwordLine =
        "the PostgreSQL URI holds a password, which would show in process lists, logs and status; remove it and put it in ~/.pgpass (or the file PGPASSFILE names), or for commitsd in the systemd credential postgresql-password"

    /// Every directory a store named `url` would have created in the working directory (what the child inherits).
    func createdBy(_ url: String) -> Bool {
        FileManager.default.fileExists(atPath: String(url.prefix { $0 != "/" }))
    }

    @Test(arguments: [
        (["sync", "a/b", "--api-url", "http://127.0.0.1:1"], "postgresql://mirror:hunter2-secret@localhost/r3-db-url-test"),
        (["query", "--author", "x"], "postgres://u@localhost:5432/r3-db-url-test?password=hunter2-secret"),
        (["status"], "mysql://localhost/r3-db-url-test"),
        (["check"], "mysql://localhost/r3-db-url-test"),
    ])
    func aRefusedStoreURIIsOneLineFromEverySource(arguments: [String], url: String) async throws {
        let scheme = String(url.prefix { $0 != ":" })
        let refusal =
            scheme.hasPrefix("postgres")
            ? Self.passwordLine
            : "the store is a \(scheme):// URL; a store is an SQLite file path or a postgresql:// (postgres://) URI"
        let config = try directory.write("config.yaml", "store: \(url)\nrepositories: [a/b]\n")
        // A flag or the environment fails the command (1); the configuration file is a configuration error (2).
        for (extra, environment, status, line) in [
            (["--db", url], [String: String](), 1, refusal), ([], ["COMMITS_DB": url], 1, refusal),
            (["--config", config], [:], 2, "\(config):1: store: \(refusal)"),
        ] {
            let result = try #require(
                try await runBounded("commitsctl", arguments + extra, limit: .seconds(60), environment: environment))
            #expect(result.status == Int32(status), "\(extra) \(environment): \(result.stderr)")
            #expect(result.stderr == "commitsctl: error: \(line)\n", "\(extra) \(environment)")
            #expect(!result.stderr.contains("hunter2"))
            #expect(!createdBy(url), "\(extra) \(environment) created \(url.prefix { $0 != "/" })")
        }
    }

    /// Nothing listens on port 1: the sync fails at once, in one line naming the store, and creates nothing.
    @Test func anUnreachablePostgreSQLStoreIsOneLine() async throws {
        let url = "postgresql://mirror@127.0.0.1:1/r3-db-url-test"
        let result = try #require(
            try await runBounded("commitsctl", ["sync", "a/b", "--api-url", "http://127.0.0.1:1", "--db", url], limit: .seconds(60)))
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stderr.hasPrefix("commitsctl: error: cannot connect to the PostgreSQL store \(url): "), "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1)
        #expect(!createdBy(url))
    }
}
