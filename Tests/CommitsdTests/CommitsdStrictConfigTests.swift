import MirrorTestSupport
import Foundation
import Testing

/// `commitsd` refuses configuration files that would hang or exhaust it, in
/// seconds and in one line.
@Suite struct CommitsdStrictConfigTests {
    let directory: TemporaryDirectory
    init() throws { directory = try TemporaryDirectory() }

    /// `commitsd --check-config --config PATH`; a run past a minute fails the test.
    func checkConfig(
        _ path: String, _ comment: Comment? = nil, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> ProcessResult {
        try #require(
            try await runBounded("commitsd", ["--check-config", "--config", path], limit: .seconds(60)), comment,
            sourceLocation: sourceLocation)
    }

    /// `--check-config` refuses `yaml`, written as `name`, with status 2 and exactly the line
    /// `refusal` gives for the file's path.
    func expectRefused(
        _ name: String, _ yaml: String, with refusal: (_ path: String) -> String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let path = try directory.write(name, yaml)
        let result = try await checkConfig(path, sourceLocation: sourceLocation)
        #expect(result.status == 2, sourceLocation: sourceLocation)
        #expect(result.stderr == refusal(path) + "\n", sourceLocation: sourceLocation)
    }

    static let aliasBomb = aliasBombConfiguration

    @Test func theAliasBombIsRefusedInSeconds() async throws {
        let path = try directory.write("bomb.yaml", Self.aliasBomb)
        // Unrefused, expanding it takes minutes; the bound (not a wall-clock figure,
        // which a loaded test machine inflates) is what fails a regression.
        let result = try await checkConfig(path, "commitsd --check-config was still expanding aliases after 20 s")
        #expect(result.status == 2)
        #expect(
            result.stderr
                == "commitsd: error: \(path):2:8: uses the alias *a; aliases (*name) are not allowed in configuration files; expected every value written out in full\n"
        )
    }

    @Test func aHugeConfigurationIsRefusedBySize() async throws {
        try await expectRefused("big.yaml", "repositories: [acme/widgets]\n" + String(repeating: "#\n", count: 1 << 20)) { path in
            "commitsd: error: \(path): the file is larger than 1 MiB; expected a configuration file like config/commits-mirror.example.yaml"
        }
    }

    @Test(arguments: [["--check-config"], []])
    func aFIFOIsRefusedWithoutBlocking(extra: [String]) async throws {
        let fifo = directory.path("config.fifo")
        try makeFIFO(fifo)
        let result = try #require(
            try await runBounded("commitsd", extra + ["--config", fifo], limit: .seconds(60)),
            "commitsd blocked on the FIFO")
        #expect(result.status == 2)
        #expect(
            result.stderr
                == "commitsd: error: \(fifo): is a FIFO (named pipe), not a configuration file; expected a readable YAML file like config/commits-mirror.example.yaml\n"
        )
    }

    @Test func aFIFOAsTheStoreStopsStartUp() async throws {
        let fifo = directory.path("store.fifo")
        try makeFIFO(fifo)
        let path = try directory.write("config.yaml", "store: store.fifo\nrepositories: [acme/widgets]\napi_url: http://127.0.0.1:1\n")
        let result = try #require(
            try await runBounded("commitsd", ["--config", path], limit: .seconds(60)), "commitsd blocked on the FIFO")
        #expect(result.status == 1)
        #expect(result.stderr.contains("is a FIFO (named pipe), not a store file"), "\(result.stderr)")
    }

    /// Issue #25 item 6: an interval over a day (max_interval's bound) is refused
    /// for every interval key, however large, without overflowing.
    @Test(arguments: [
        ("default_interval: 99999999999h", "default_interval", "99999999999h"),
        ("default_interval: 9223372036854775807", "default_interval", "9223372036854775807"),
        ("default_interval: 99999999999999999999999", "default_interval", "99999999999999999999999"),
        ("min_interval: 9999999999999999999h99999999999999m", "min_interval", "9999999999999999999h99999999999999m"),
        ("max_interval: 25h", "max_interval", "25h"),
    ])
    func anIntervalOverADayIsRefused(line: String, key: String, value: String) async throws {
        try await expectRefused("config.yaml", "\(line)\nrepositories: [acme/widgets]\n") { path in
            "commitsd: error: \(path):1: \(key): \(value) is longer than a day; expected at most 24h, so a dormant repository is still polled daily"
        }
        let perRepository = try directory.write(
            "repository.yaml", "repositories:\n  - name: acme/widgets\n    interval: \(value)\n")
        let refused = try await checkConfig(perRepository)
        #expect(refused.status == 2)
        #expect(refused.stderr.contains(":3: repositories[0].interval: \(value) is longer than a day;"), "\(refused.stderr)")
    }

    /// Issue #25: a `scheme://` store is refused in one line, and no directory is made;
    /// issue #26: so is a PostgreSQL URI with a password in it.
    @Test(arguments: [
        (
            "mysql://localhost/r3-commitsd-db-url-test",
            "the store is a mysql:// URL; a store is an SQLite file path or a postgresql:// (postgres://) URI"
        ),
        (
            "postgresql://mirror:hunter2@localhost/r3-commitsd-db-url-test",
            "the PostgreSQL URI holds a password, which would show in process lists, logs and status; remove it and put it in ~/.pgpass (or the file PGPASSFILE names), or for commitsd in the systemd credential postgresql-password"
        ),
    ])
    func aRefusedStoreURIStopsStartUp(url: String, refusal: String) async throws {
        let path = try directory.write("config.yaml", "store: \(url)\nrepositories: [acme/widgets]\napi_url: http://127.0.0.1:1\n")
        let result = try #require(try await runBounded("commitsd", ["--config", path], limit: .seconds(60)))
        #expect(result.status == 2)
        let errors = result.stderr.split(separator: "\n").filter { $0.contains("error") }
        #expect(errors.count == 1, "\(result.stderr)")
        #expect(errors.first?.hasSuffix("\(path):1: store: \(refusal)") == true, "\(result.stderr)")
        #expect(!result.stderr.contains("hunter2"))
        #expect(!FileManager.default.fileExists(atPath: String(url.prefix { $0 != "/" })))
    }

    /// Daemons on a PostgreSQL store share a queue of repositories, not of branches: a glob in
    /// `branches:` would be ignored there, so it is refused in one line naming it.
    @Test func anEmptyConfigFlagIsRefused() async throws {
        let result = try await checkConfig("")
        #expect(result.status == 64)
        #expect(result.stderr == "commitsd: error: --config is empty; give the path of a configuration file, or leave --config out\n")
    }

    @Test func aBadBranchIsRefusedWithItsLine() async throws {
        try await expectRefused("branch.yaml", "repositories:\n  - name: acme/widgets\n    branch: ../main\n") { path in
            "commitsd: error: \(path):3: repositories[0].branch: '../main' is not a valid branch name: it contains '..'; expected a git branch name such as main or release/1.0"
        }
    }

    @Test(arguments: [["--bogus"], ["--log-level", "loud"]])
    func usageErrorsAreOneLineInTheCommonStyle(arguments: [String]) async throws {
        let result = try #require(try await runBounded("commitsd", arguments, limit: .seconds(60)))
        #expect(result.status == 64)
        #expect(result.stderr.hasPrefix("commitsd: error: "), "\(result.stderr)")
        #expect(result.stderr.filter { $0 == "\n" }.count == 1, "\(result.stderr)")
    }
}
