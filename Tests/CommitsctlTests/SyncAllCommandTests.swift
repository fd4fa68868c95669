import MirrorTestSupport
import Foundation
import GitHubSim
import MirrorCore
import Testing

/// `commitsctl sync` without a repository (cron style) and `commitsctl status`.
@Suite struct SyncAllCommandTests {
    let directory: TemporaryDirectory
    init() throws {
        // RepositoryLock opens the SQLite driver in this process, whichever suite runs first.
        TestStoreDrivers.register()
        directory = try TemporaryDirectory()
    }
    var store: String { directory.path("commits.sqlite") }

    func config(_ simulator: GitHubSimulator, _ repositories: [String], extra: String = "") throws -> String {
        try directory.write(
            "config.yaml",
            """
            store: commits.sqlite
            api_url: \(simulator.baseURL)
            \(extra)
            repositories: [\(repositories.joined(separator: ", "))]
            """)
    }

    func sync(_ arguments: [String], environment: [String: String] = ["GITHUB_TOKEN": "test-token"]) async throws -> ProcessResult {
        try await run("commitsctl", ["sync"] + arguments, environment: environment)
    }

    @Test func syncsEveryConfiguredRepositoryOnce() async throws {
        try await withRunning(startSimulator([("alpha", 150), ("beta", 40)])) { simulator in
            let path = try config(simulator, ["acme/alpha", "acme/beta"])
            let first = try await sync(["--config", path])
            #expect(first.status == 0, "\(first.stderr)")
            #expect(first.lines.count == 2)
            #expect(first.lines[0].hasPrefix("acme/alpha@main: 150 new, 0 updated, "))
            #expect(first.lines[1].hasPrefix("acme/beta@main: 40 new, 0 updated, "))
            // $COMMITS_MIRROR_CONFIG works the same; an unchanged mirror costs one 304 each.
            let second = try await sync([], environment: ["GITHUB_TOKEN": "test-token", "COMMITS_MIRROR_CONFIG": path])
            #expect(second.status == 0)
            #expect(second.lines.allSatisfy { $0.contains(": 0 new, 0 updated, 2 requests (2 not modified)") }, "\(second.stdout)")
        }
    }

    @Test func someFailedExits1AndTheRestStillSync() async throws {
        try await withRunning(startSimulator([("alpha", 30)])) { simulator in
            let path = try config(simulator, ["acme/nope", "acme/alpha"])
            let result = try await sync(["--config", path])
            #expect(result.status == 1)
            #expect(
                result.stderr
                    == "commitsctl: error: acme/nope: repository acme/nope not found, or the token from environment variable GITHUB_TOKEN cannot see it; check the name and the token's access\n"
            )
            #expect(result.stdout.hasPrefix("acme/alpha@main: 30 new"))
            let status = try await run("commitsctl", ["status", "--config", path, "--json"])
            let rows = try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as! [[String: Any]]
            #expect(rows.map { $0["repository"] as? String } == ["acme/alpha", "acme/nope"])
            #expect(rows[0]["last_error"] is NSNull && rows[0]["complete"] as? Bool == true)
            // The engine fails before it records an attempt when the repository itself is unknown.
            #expect(rows[1]["last_success_at"] is NSNull && rows[1]["commits"] as? Int == 0)
        }
    }

    @Test func badConfigurationExits2() async throws {
        let path = try directory.write("config.yaml", "repositories: [acme/widgets]\nstore: [x]\n")
        let result = try await sync(["--config", path])
        #expect(result.status == 2)
        #expect(
            result.stderr
                == "commitsctl: error: \(path):2: store: is a list; expected the path of the SQLite store file, or a postgresql:// URI\n")
        let none = try await sync(["--db", store])
        #expect(none.status == 2)
        #expect(
            none.stderr
                == "commitsctl: error: no repository given and no configuration file found; expected OWNER/REPO, or --config PATH (or $COMMITS_MIRROR_CONFIG), or /etc/commits-mirror/config.yaml; see config/commits-mirror.example.yaml\n"
        )
        let branch = try await sync(["--branch", "main", "--config", path])
        #expect(branch.status == 64)
    }

    @Test func rateLimitedExits75AndStops() async throws {
        var configuration = SimConfiguration()
        configuration.authenticatedLimit = 4
        try await withRunning(startSimulator([("alpha", 1000), ("beta", 10)], configuration: configuration)) { simulator in
            let path = try config(simulator, ["acme/alpha", "acme/beta"])
            let result = try await sync(["--config", path])
            #expect(result.status == 75, "\(result.stderr)")
            #expect(result.stderr.hasPrefix("commitsctl: error: acme/alpha: GitHub API rate limit exhausted; it resets at "))
            #expect(result.stderr.hasSuffix("commitsctl: warning: not attempted (rate-limited): acme/beta\n"))
        }
    }

    @Test func rateLimitReserveIsKept() async throws {
        try await withRunning(startSimulator([("alpha", 250), ("beta", 10)])) { simulator in
            let path = try config(simulator, ["acme/alpha", "acme/beta"], extra: "rate_limit_reserve: 4997")
            let result = try await sync(["--config", path])
            #expect(result.status == 75)
            #expect(result.lines.isEmpty, "\(result.stdout)")
            #expect(
                result.stderr.hasPrefix(
                    "commitsctl: error: acme/alpha: stopped to keep the rate-limit reserve of 4997 requests; the limit resets at "))
            #expect(result.stderr.hasSuffix("commitsctl: warning: not attempted (rate-limited): acme/beta\n"))
            // The walk stopped between pages; with a fresh budget (another token) it resumes
            // from its checkpoint and completes, and the reserve then stops the run again.
            let resumed = try await sync(["--config", path], environment: ["GITHUB_TOKEN": "other-token"])
            #expect(resumed.status == 75, "\(resumed.stderr)")
            #expect(resumed.lines.count == 1 && resumed.lines[0].hasPrefix("acme/alpha@main: "), "\(resumed.stdout)")
            #expect(StoreInspection(store).memberSHAsSoFar(of: "acme/alpha") == (try simulator.reachableSHAs(owner: "acme", name: "alpha")))
        }
    }

    @Test func repositoryLockedByAnotherWriterIsSkipped() async throws {
        try await withRunning(startSimulator([("alpha", 20), ("beta", 20)])) { simulator in
            let path = try config(simulator, ["acme/alpha", "acme/beta"])
            let held = try RepositoryLock.acquire(
                store: .sqliteFile(store), repository: RepositoryName(owner: "acme", name: "alpha"), holder: "commitsd")
            defer { held.release() }
            let result = try await sync(["--config", path])
            #expect(result.status == 75)
            #expect(
                result.stderr
                    == "commitsctl: warning: acme/alpha is being synced by another process (commitsd (pid \(getpid()))) right now; skipped it, try again when that finishes\n"
            )
            #expect(result.lines.count == 1 && result.lines[0].hasPrefix("acme/beta@main: 20 new"))
        }
    }
}

@Suite struct StatusCommandTests {
    let directory: TemporaryDirectory
    init() throws { directory = try TemporaryDirectory() }
    var store: String { directory.path("commits.sqlite") }

    @Test func tableAndJSON() async throws {
        try await withRunning(startSimulator([("alpha", 120), ("beta", 30)])) { simulator in
            let path = try directory.write(
                "config.yaml",
                """
                store: commits.sqlite
                api_url: \(simulator.baseURL)
                repositories: [acme/alpha, acme/gamma]
                """)
            let synced = try await run(
                "commitsctl", ["sync", "acme/alpha", "--db", store, "--api-url", simulator.baseURL],
                environment: ["GITHUB_TOKEN": "t"])
            #expect(synced.status == 0)
            let head = try simulator.headSHA(owner: "acme", name: "alpha")

            let table = try await run("commitsctl", ["status", "--config", path], environment: ["COLUMNS": "200"])
            #expect(table.status == 0, "\(table.stderr)")
            #expect(table.lines.count == 3)
            #expect(table.lines[0].hasPrefix("REPOSITORY  BRANCH     COMMITS  COMPLETE  TAGS  HEAD     LAST SUCCESS"))
            #expect(table.lines[1].hasPrefix("acme/alpha  main           120  yes          0  \(head.prefix(7))  20"))
            #expect(table.lines[2].hasPrefix("acme/gamma  (default)        0  no           -  -        never"))

            let json = try await run("commitsctl", ["status", "--config", path, "--json"])
            let rows = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as! [[String: Any]]
            #expect(rows.count == 2)
            #expect(
                Set(rows[0].keys) == [
                    "repository", "branch", "configured", "commits", "complete", "head_sha", "head_etag", "last_attempt_at",
                    "last_success_at", "last_error", "rate_limit_remaining", "rate_limit_reset_at", "pending_walks", "state",
                    "state_reason", "held_by", "lease_until", "repository_commits_with_paths", "repository_tags",
                    "repository_pull_requests",
                ])
            #expect(rows[0]["repository"] as? String == "acme/alpha")
            #expect(rows[0]["head_sha"] as? String == head)
            #expect(rows[0]["head_etag"] as? String == "\"\(head)\"")
            #expect(rows[0]["complete"] as? Bool == true)
            #expect(rows[0]["commits"] as? Int == 120)
            #expect(rows[0]["configured"] as? Bool == true)
            #expect((rows[0]["rate_limit_remaining"] as? Int ?? 0) > 4000)
            #expect(rows[1]["repository"] as? String == "acme/gamma" && rows[1]["last_attempt_at"] is NSNull)

            // Without a configuration: only the store, `configured` unknown.
            let plain = try await run("commitsctl", ["status", "--db", store, "--json"])
            let plainRows = try JSONSerialization.jsonObject(with: Data(plain.stdout.utf8)) as! [[String: Any]]
            #expect(plainRows.count == 1 && plainRows[0]["configured"] is NSNull)

            let missing = try await run("commitsctl", ["status", "--db", directory.path("none.sqlite")])
            #expect(missing.status == 1)
            #expect(missing.stderr.hasPrefix("commitsctl: error: no store at "))
        }
    }
}
