import Foundation
import MirrorTestSupport
import Testing

/// Issue #25: `--db postgresql://…` used to create a directory `postgresql:`
/// (in the working directory) and an SQLite file inside it. A `scheme://` store
/// is refused with one line, from every place a store is named, and nothing is created.
@Suite struct DatabaseURLTests {
    let directory: TemporaryDirectory
    init() throws { directory = try TemporaryDirectory() }

    static let postgresLine =
        "but PostgreSQL stores are not supported yet by this version; give the path of an SQLite store file"

    /// Every directory a store named `url` would have created in the working directory (what the child inherits).
    func createdBy(_ url: String) -> Bool {
        FileManager.default.fileExists(atPath: String(url.prefix { $0 != "/" }))
    }

    @Test(arguments: [
        (["sync", "a/b", "--api-url", "http://127.0.0.1:1"], "postgresql://localhost/r3-db-url-test"),
        (["query", "--author", "x"], "postgres://u@localhost:5432/r3-db-url-test"),
        (["status"], "postgresql://localhost/r3-db-url-test"),
        (["check"], "mysql://localhost/r3-db-url-test"),
    ])
    func aDatabaseURLAsTheStoreIsRefusedInOneLine(arguments: [String], url: String) async throws {
        let scheme = String(url.prefix { $0 != ":" })
        let refusal =
            scheme.hasPrefix("postgres")
            ? "the store is a \(scheme):// URL, \(Self.postgresLine)"
            : "the store is a \(scheme):// URL; only SQLite store files are supported: give a file path"
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
            #expect(!createdBy(url), "\(extra) \(environment) created \(url.prefix { $0 != "/" })")
        }
    }
}
