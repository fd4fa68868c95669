import MirrorTestSupport
import Foundation
import Testing

/// Every failure prints one line on stderr that says what to do, and exits non-zero.
@Suite struct ErrorMessageTests {
    let directory: TemporaryDirectory
    init() throws { directory = try TemporaryDirectory() }
    var db: String { directory.path("commits.sqlite") }

    @Test func unknownRepository() async throws {
        let sim = try await SimulatorProcess.start(["--synthetic", "acme/widgets=10"])
        defer { sim.stop() }
        let result = try await run("commitsctl", ["sync", "octo/nope", "--db", db, "--api-url", sim.baseURL])
        #expect(result.status == 1)
        #expect(
            result.stderr
                == "commitsctl: error: repository octo/nope not found (or private, and no token was given); check the name; a private repository needs GITHUB_TOKEN (or --token-file)\n"
        )
    }

    @Test func malformedRepositoryName() async throws {
        let result = try await run("commitsctl", ["sync", "not-a-repo", "--db", db])
        #expect(result.status == 64)
        #expect(result.stderr.contains("'not-a-repo' is not a repository name; expected OWNER/NAME"))
    }

    @Test func badAPIURL() async throws {
        let result = try await run("commitsctl", ["sync", "a/b", "--db", db, "--api-url", "ftp://example"])
        #expect(result.status == 64)
        #expect(result.stderr.contains("--api-url / $GITHUB_API_URL must be an http(s) URL"))
    }

    @Test func unreachableAPI() async throws {
        let result = try await run("commitsctl", ["sync", "a/b", "--db", db, "--api-url", "http://127.0.0.1:1"])
        #expect(result.status == 1)
        #expect(result.stderr.hasPrefix("commitsctl: error: could not reach http://127.0.0.1:1/repos/a/b after"))
        #expect(result.stderr.contains("check the network and --api-url"))
    }

    @Test func rejectedTokenNamesTheVariableNotTheValue() async throws {
        let tokens = directory.path("tokens")
        try "good-token\n".write(toFile: tokens, atomically: true, encoding: .utf8)
        let sim = try await SimulatorProcess.start(["--synthetic", "acme/widgets=10", "--tokens-file", tokens])
        defer { sim.stop() }
        let result = try await run(
            "commitsctl", ["sync", "acme/widgets", "--db", db, "--api-url", sim.baseURL],
            environment: ["GH_TOKEN": "sekrit-value-123"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("GitHub rejected the token from environment variable GH_TOKEN"))
        #expect(!result.stderr.contains("sekrit") && !result.stdout.contains("sekrit"))
    }

    @Test func tokenFileProblems() async throws {
        let missing = directory.path("absent-token")
        let result = try await run("commitsctl", ["sync", "a/b", "--db", db, "--token-file", missing])
        #expect(result.status == 1)
        #expect(
            result.stderr
                == "commitsctl: error: cannot read the token file \(missing): No such file or directory; check the path and that this user may read it\n"
        )

        let open = directory.path("open-token")
        try "good-token\n".write(toFile: open, atomically: true, encoding: .utf8)
        chmod(open, 0o644)
        let sim = try await SimulatorProcess.start(["--synthetic", "acme/widgets=10"])
        defer { sim.stop() }
        let warned = try await run("commitsctl", ["sync", "acme/widgets", "--db", db, "--api-url", sim.baseURL, "--token-file", open])
        #expect(warned.status == 0)
        #expect(warned.stderr.contains("warning: token file \(open) is readable by group or others (mode 644); run: chmod 600"))
    }

    @Test func rateLimitedExitsWithTryLater() async throws {
        let sim = try await SimulatorProcess.start(["--synthetic", "acme/widgets=1000", "--unauthenticated-limit", "4"])
        defer { sim.stop() }
        let result = try await run("commitsctl", ["sync", "acme/widgets", "--db", db, "--api-url", sim.baseURL])
        #expect(result.status == 75)
        #expect(result.stderr.contains("GitHub API rate limit exhausted; it resets at"))
        #expect(result.stderr.contains("set GITHUB_TOKEN for 5,000"))
    }

    @Test func queryWithoutAStore() async throws {
        let result = try await run("commitsctl", ["query", "--author", "x", "--db", db])
        #expect(result.status == 1)
        #expect(
            result.stderr
                == "commitsctl: error: no store at \(db); run `commitsctl sync OWNER/REPO` first, or point --db / $COMMITS_DB at an existing store\n"
        )
    }

    @Test func storeThatIsNotSQLite() async throws {
        try String(repeating: "plain text\n", count: 200).write(toFile: db, atomically: true, encoding: .utf8)
        let before = try Data(contentsOf: URL(fileURLWithPath: db))
        let result = try await run("commitsctl", ["sync", "a/b", "--db", db, "--api-url", "http://127.0.0.1:1"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("is not a commits-mirror store"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: db)) == before)
    }
}

@Suite struct BranchTests {
    @Test func explicitBranchAndUnknownBranch() async throws {
        let directory = try TemporaryDirectory()
        let db = directory.path("commits.sqlite")
        let sim = try await SimulatorProcess.start(["--synthetic", "acme/widgets=150"])
        defer { sim.stop() }
        let ok = try await run(
            "commitsctl", ["sync", "acme/widgets", "--branch", "main", "--db", db, "--api-url", sim.baseURL],
            environment: ["GITHUB_TOKEN": "t"])
        #expect(ok.status == 0, "\(ok.stderr)")
        #expect(ok.stdout.hasPrefix("acme/widgets@main: 150 new"))
        let missing = try await run(
            "commitsctl", ["sync", "acme/widgets", "--branch", "nope", "--db", db, "--api-url", sim.baseURL],
            environment: ["GITHUB_TOKEN": "t"])
        #expect(missing.status == 1)
        #expect(missing.stderr == "commitsctl: error: branch 'nope' not found in acme/widgets; check --branch\n")
    }
}
