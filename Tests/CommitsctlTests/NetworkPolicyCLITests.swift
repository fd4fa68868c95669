import MirrorTestSupport
import Foundation
import SQLite
import Testing

/// The token and network policy through the real `commitsctl`: redirects stay
/// on the API origin, a token with a line break never leaves the process,
/// server text echoing the token is redacted everywhere it lands, an API URL
/// with credentials is refused without echoing them, and a long retry-after
/// is exit 75 rather than a sleep. Every server is a loopback `HostileServer`.
@Suite struct NetworkPolicyCLITests {
    let directory: TemporaryDirectory
    init() throws { directory = try TemporaryDirectory() }
    var db: String { directory.path("commits.sqlite") }

    static let json = [("Content-Type", "application/json; charset=utf-8")]
    static let repositoryBody = Array(#"{"id":7,"full_name":"o/r","default_branch":"main"}"#.utf8)

    /// Lines on stderr (a one-line error is exactly one).
    static func lines(_ text: String) -> [Substring] { text.split(separator: "\n") }

    @Test func aRedirectToAnotherHostIsRefusedAndNeverFollowed() async throws {
        let elsewhere = try HostileServer(address: "127.0.0.2") { _, connection in
            connection.respond(status: 200, headers: Self.json, body: Self.repositoryBody)
        }
        defer { elsewhere.stop() }
        let api = try HostileServer.redirecting(to: elsewhere.baseURL + "/repositories/7")
        defer { api.stop() }
        let result = try await run(
            "commitsctl", ["sync", "o/r", "--db", db, "--api-url", api.baseURL],
            environment: ["GITHUB_TOKEN": SecretScan.token])
        #expect(result.status == 1, "\(result.stderr)")
        #expect(Self.lines(result.stderr).count == 1, "\(result.stderr)")
        #expect(
            result.stderr.hasPrefix(
                "commitsctl: error: refused a redirect from \(api.baseURL)/repos/o/r to \(elsewhere.baseURL)/repositories/7: it leads outside the API origin \(api.baseURL)"
            ),
            "\(result.stderr)")
        #expect(api.requests.map(\.path) == ["/repos/o/r"])
        #expect(elsewhere.requests.isEmpty, "the other host was contacted")
        #expect(SecretScan.leaks(in: ["stdout": result.stdout, "stderr": result.stderr]).isEmpty)
    }

    @Test(arguments: ["GITHUB_TOKEN", "GH_TOKEN", "--token-file"])
    func aTokenWithALineBreakIsRefusedBeforeAnyRequest(_ source: String) async throws {
        let api = try HostileServer { _, connection in
            connection.respond(status: 200, headers: Self.json, body: Self.repositoryBody)
        }
        defer { api.stop() }
        let hostile = "abc\r\nX-Evil: 1"
        var arguments = ["sync", "o/r", "--db", db, "--api-url", api.baseURL]
        var environment: [String: String] = [:]
        let named: String
        if source == "--token-file" {
            let file = try directory.write("token", hostile + "\n")
            chmod(file, 0o600)
            arguments += ["--token-file", file]
            named = "file \(file)"
        } else {
            environment[source] = hostile
            named = "environment variable \(source)"
        }
        let result = try await run("commitsctl", arguments, environment: environment)
        #expect(result.status == 1, "\(result.stderr)")
        #expect(
            result.stderr.hasPrefix("commitsctl: error: the token from \(named) contains a control character or whitespace;"),
            "\(result.stderr)")
        #expect(Self.lines(result.stderr).count == 1, "\(result.stderr)")
        #expect(!result.stderr.contains("abc") && !result.stderr.contains("X-Evil"))
        #expect(api.requests.isEmpty, "a request was sent: \(api.requests.map(\.headers))")
    }

    /// The repository lookup succeeds (so the failure is recorded in the
    /// store); everything after it is a 403 whose message quotes the token.
    @Test func aServerEchoingTheTokenIsRedactedInStderrTheStoreAndStatus() async throws {
        let api = try HostileServer { request, connection in
            if request.path == "/repos/o/r" {
                connection.respond(status: 200, headers: Self.json, body: Self.repositoryBody)
                return
            }
            let body = #"{"message":"Forbidden for \#(request.authorization ?? "no token")"}"#
            connection.respond(status: 403, reason: "Forbidden", headers: Self.json, body: Array(body.utf8))
        }
        defer { api.stop() }
        let sync = try await run(
            "commitsctl", ["sync", "o/r", "--db", db, "--api-url", api.baseURL, "--log-level", "trace"],
            environment: ["GITHUB_TOKEN": SecretScan.token])
        #expect(sync.status == 1, "\(sync.stderr)")
        #expect(
            api.requests.count >= 2 && api.requests.allSatisfy { $0.authorization == "Bearer \(SecretScan.token)" },
            "the server saw the token, so it could echo it")
        #expect(
            sync.stderr.contains("commitsctl: error: GitHub refused the request (403: Forbidden for Bearer [REDACTED])"), "\(sync.stderr)")

        let stored = try Connection(path: db, mode: .readOnly).prepare("SELECT last_error FROM sync_state").map { $0.string(0) }
        #expect(stored.count == 1 && stored.allSatisfy { $0.contains("Forbidden for Bearer [REDACTED]") }, "\(stored)")

        let status = try await run("commitsctl", ["status", "--json", "--db", db])
        #expect(status.status == 0, "\(status.stderr)")
        #expect(status.stdout.contains("[REDACTED]"), "\(status.stdout)")

        #expect(
            SecretScan.leaks(in: [
                "sync": sync.stdout + sync.stderr, "status": status.stdout + status.stderr, "last_error": stored.joined(),
            ]).isEmpty)
        #expect(SecretScan.leaks(inStoreAt: db).isEmpty)
    }

    @Test func anAPIURLWithCredentialsIsRefusedWithoutEchoingThem() async throws {
        let url = "http://user:password@127.0.0.1:1"
        let flag = try await run("commitsctl", ["sync", "o/r", "--db", db, "--api-url", url])
        #expect(flag.status == 64, "\(flag.stderr)")
        #expect(flag.stderr.contains("--api-url / $GITHUB_API_URL must not contain a user name or credentials"), "\(flag.stderr)")

        let variable = try await run("commitsctl", ["sync", "o/r", "--db", db], environment: ["GITHUB_API_URL": url])
        #expect(variable.status == 64, "\(variable.stderr)")
        #expect(variable.stderr.contains("must not contain a user name or credentials"), "\(variable.stderr)")

        let config = try directory.write(
            "config.yaml",
            """
            store: \(db)
            api_url: \(url)
            repositories:
              - o/r

            """)
        let file = try await run("commitsctl", ["sync", "--config", config])
        #expect(file.status == 2, "\(file.stderr)")
        #expect(
            file.stderr.hasPrefix("commitsctl: error: \(config): api_url: must not contain a user name or credentials"), "\(file.stderr)")
        #expect(Self.lines(file.stderr).count == 1, "\(file.stderr)")

        for result in [flag, variable, file] {
            #expect(!result.stderr.contains("password") && !result.stdout.contains("password"), "\(result.stderr)")
        }
    }

    @Test func aHugeRetryAfterExitsWithTryLaterAtOnce() async throws {
        let api = try HostileServer { _, connection in
            connection.respond(
                status: 403, reason: "Forbidden", headers: Self.json + [("retry-after", "1000000000")],
                body: Array(#"{"message":"You have exceeded a secondary rate limit."}"#.utf8))
        }
        defer { api.stop() }
        // Not slept (that would be 31 years): the process ends after its one request, exit 75.
        let result = try await run(
            "commitsctl", ["sync", "o/r", "--db", db, "--api-url", api.baseURL],
            environment: ["GITHUB_TOKEN": SecretScan.token])
        #expect(result.status == 75, "\(result.stderr)")
        #expect(result.stderr.hasPrefix("commitsctl: error: GitHub's secondary rate limit asks to retry after "), "\(result.stderr)")
        #expect(result.stderr.contains("retry later"), "\(result.stderr)")
        #expect(Self.lines(result.stderr).count == 1, "\(result.stderr)")
        #expect(api.requests.count == 1)
    }

    /// `--wait` with a reset already past (clock skew, or a server that keeps
    /// saying 0): a bounded number of retries with growing backoff, then exit 75.
    @Test func waitingForAResetInThePastGivesUp() async throws {
        let api = try HostileServer { _, connection in
            let past = Int(Date().timeIntervalSince1970) - 100
            connection.respond(
                status: 403, reason: "Forbidden",
                headers: Self.json + [("x-ratelimit-limit", "5000"), ("x-ratelimit-remaining", "0"), ("x-ratelimit-reset", "\(past)")],
                body: Array(#"{"message":"API rate limit exceeded for user ID 1."}"#.utf8))
        }
        defer { api.stop() }
        let result = try await run(
            "commitsctl", ["sync", "o/r", "--wait", "--db", db, "--api-url", api.baseURL, "--log-level", "trace"],
            environment: ["GITHUB_TOKEN": SecretScan.token])
        #expect(result.status == 75, "\(result.stderr)")
        let errors = Self.lines(result.stderr).filter { $0.hasPrefix("commitsctl: error:") }
        #expect(errors.count == 1 && errors[0].contains("rate limit exhausted"), "\(result.stderr)")
        // RetryPolicy.maximumAttempts (5) requests at most: never a retry every second forever.
        #expect(api.requests.count >= 2 && api.requests.count <= 5, "\(api.requests.count) requests")
        #expect(SecretScan.leaks(in: ["stdout": result.stdout, "stderr": result.stderr]).isEmpty)
    }
}
