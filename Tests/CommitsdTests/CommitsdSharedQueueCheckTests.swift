import Foundation
import GitHubSim
import MirrorTestSupport
import Testing

/// `commitsd --check-config` on a PostgreSQL store compares the file with the
/// queue the daemons share, reading the real database and writing nothing.
@Suite struct CommitsdSharedQueueCheckTests {
    typealias Shared = CommitsdSharedQueueTests
    let directory: TemporaryDirectory
    init() throws { directory = try TemporaryDirectory() }

    func checkConfig(store: String, repositories: [String], name: String = "checker") async throws -> ProcessResult {
        let config = try directory.write(
            "\(name).yaml",
            """
            store: \(store)
            name: \(name)
            repositories:
            \(repositories.map { "  - \"\($0)\"" }.joined(separator: "\n"))

            """)
        return try await run("commitsd", ["--check-config", "--config", config])
    }

    static func queueLines(_ output: String) -> [String] {
        output.split(separator: "\n").map(String.init).filter { $0.hasPrefix("shared queue: ") }
    }

    @Test func theFileIsComparedWithTheQueueItsDaemonWouldClaimFrom() async throws {
        let server = try await PostgreSQLServer.shared()
        try await withRunning(Shared.simulator(repositories: 3, commits: 30, delay: .zero)) { simulator in
            let uri = try server.createDatabase()
            // Two repositories reach the queue the way a command's claim puts them there.
            for name in ["acme/repo-0", "acme/repo-2"] {
                let sync = try await run(
                    "commitsctl", ["sync", name, "--db", uri, "--api-url", simulator.baseURL], environment: ["GITHUB_TOKEN": "t"])
                #expect(sync.status == 0, "\(sync.stderr)")
            }
            let tables = try server.execute("SELECT count(*) FROM pg_tables", database: Shared.database(of: uri))

            let listed = try await checkConfig(store: uri, repositories: ["acme/repo-0", "acme/repo-1"])
            #expect(listed.status == 0, "\(listed.stderr)")
            #expect(
                Self.queueLines(listed.stdout) == [
                    "shared queue: 2 repositories, 0 claimed now",
                    "shared queue: 1 repository this file neither lists nor matches with a pattern; this daemon gives them back untouched, the daemons whose files list them sync them: acme/repo-2",
                    "shared queue: 1 repository this file lists is not queued yet; this daemon adds them when it starts: acme/repo-1",
                ], "\(listed.stdout)")

            // A pattern matches every queued repository; a claim held under this daemon's name is named.
            _ = try server.execute(
                "UPDATE sync_leases SET owner = 'checker', lease_until = now() + interval '1 minute' WHERE lower(repository) = 'acme/repo-0'",
                database: Shared.database(of: uri))
            let pattern = try await checkConfig(store: uri, repositories: ["acme/*"])
            #expect(
                Self.queueLines(pattern.stdout) == [
                    "shared queue: 2 repositories, 1 claimed now (checker: 1)",
                    "shared queue: the name checker holds 1 claim now: a daemon of this name is running, or stopped less than a lease ago; two running daemons must not share a name",
                ], "\(pattern.stdout)")
            // Read only: nothing was created or changed by the checks.
            #expect(try server.execute("SELECT count(*) FROM pg_tables", database: Shared.database(of: uri)) == tables)
        }
    }

    @Test func aDatabaseThatDoesNotAnswerIsANoteAndAFileStoreHasNoQueue() async throws {
        let server = try await PostgreSQLServer.shared()
        let missing = try await checkConfig(store: server.uri(database: "no_such_database"), repositories: ["acme/repo-0"])
        #expect(missing.status == 0, "the file is valid: \(missing.stderr)")
        let lines = Self.queueLines(missing.stdout)
        #expect(lines.count == 1 && lines[0].hasPrefix("shared queue: not compared with this file: "), "\(missing.stdout)")
        #expect(lines[0].contains("no_such_database"), "\(lines)")

        let file = try await checkConfig(store: directory.path("commits.sqlite"), repositories: ["acme/repo-0"])
        #expect(file.status == 0 && Self.queueLines(file.stdout).isEmpty, "\(file.stdout)\(file.stderr)")
        #expect(!FileManager.default.fileExists(atPath: directory.path("commits.sqlite")))
    }
}
