import MirrorTestSupport
import Foundation
import Testing
@testable import MirrorCore
import Curl

/// The token and network policy of `GitHubClient`: where the token goes, where
/// redirects may lead, which tokens are accepted, what server text may reach an
/// error or log, and how long any wait may be. Requests go only to loopback
/// `HostileServer`s; other addresses appear as strings, never requested.
@Suite struct NetworkPolicyTests {
    static let token = GitHubToken(value: SecretScan.token, source: "environment variable GITHUB_TOKEN")

    static func client(
        _ apiURL: String, token: GitHubToken? = NetworkPolicyTests.token, logs: LogCapture = LogCapture(),
        configure: (inout GitHubClient.Configuration) -> Void = { _ in }
    ) throws -> GitHubClient {
        var configuration = GitHubClient.Configuration(apiURL: apiURL, token: token)
        configuration.retry = SimulatorHarness.fastRetries()
        configuration.http.timeout = .seconds(10)
        configure(&configuration)
        return try GitHubClient(configuration: configuration, logger: logs.logger())
    }

    static let repository = RepositoryName(parsing: "o/r")!

    // MARK: - The token goes only to the API origin

    @Test(arguments: [
        ("https://api.example.com/repos/o/r", true),
        ("https://API.Example.COM:443/repos/o/r", true),
        ("http://api.example.com/repos/o/r", false),  // a downgrade would send it in clear text
        ("http://api.example.com:443/repos/o/r", false),
        ("https://api.example.com:8443/repos/o/r", false),
        ("https://example.com/repos/o/r", false),
        ("https://api.example.com.evil.test/repos/o/r", false),
        ("https://user:pw@api.example.com/repos/o/r", false),
        ("file:///etc/passwd", false),
        ("not a url", false),
    ])
    func authorizationOnlyOnTheAPIOrigin(_ url: String, carriesToken: Bool) async throws {
        let client = try Self.client("https://api.example.com")
        let authorization = try await client.requestHeaders(for: url).0["authorization"]
        #expect((authorization == "Bearer \(SecretScan.token)") == carriesToken, "\(url)")
        #expect(carriesToken || authorization == nil, "\(url)")
    }

    @Test func aPlainHTTPAPIURLKeepsItsTokenOnHTTPOnly() async throws {
        let client = try Self.client("http://127.0.0.1:8080")
        #expect(try await client.requestHeaders(for: "http://127.0.0.1:8080/repos/o/r").0["authorization"] != nil)
        #expect(try await client.requestHeaders(for: "https://127.0.0.1:8080/repos/o/r").0["authorization"] == nil)
        #expect(try await client.requestHeaders(for: "http://127.0.0.2:8080/repos/o/r").0["authorization"] == nil)
    }

    // MARK: - Redirects stay within the API origin

    @Test(
        arguments: [
            ("/repositories/1/commits?page=2", "https://api.example.com/repositories/1/commits?page=2"),
            ("https://api.example.com/repositories/1", "https://api.example.com/repositories/1"),
            ("../../repositories/1", "https://api.example.com/repositories/1"),
            ("http://169.254.169.254/latest/meta-data/", nil),
            ("//169.254.169.254/latest/meta-data/", nil),
            ("http://api.example.com/repositories/1", nil),
            ("https://api.example.com:8443/repositories/1", nil),
            ("https://elsewhere.example/repositories/1", nil),
            ("https://user:password@api.example.com/repositories/1", nil),
            ("file:///etc/passwd", nil),
            ("gopher://api.example.com/", nil),
        ] as [(String, String?)])
    func redirectTargets(_ location: String, allowed: String?) {
        let origin = APIOrigin(url: "https://api.example.com")
        #expect(GitHubClient.redirectTarget(location, from: "https://api.example.com/repos/o/r", origin: origin) == allowed)
    }

    @Test func aRedirectElsewhereIsRefusedAndNeverRequested() async throws {
        let elsewhere = try HostileServer(address: "127.0.0.2") { _, connection in
            connection.respond(status: 200, body: Array("{}".utf8))
        }
        defer { elsewhere.stop() }
        let api = try HostileServer.redirecting(to: elsewhere.baseURL + "/repositories/1")
        defer { api.stop() }
        let logs = LogCapture()
        let client = try Self.client(api.baseURL, logs: logs)
        let error = await #expect(throws: GitHubError.self) { try await client.repository(Self.repository) }
        guard case .redirectRefused(let from, let to, let origin)? = error else {
            Issue.record("expected redirectRefused, got \(String(describing: error))")
            return
        }
        #expect(from == api.baseURL + "/repos/o/r")
        #expect(to == elsewhere.baseURL + "/repositories/1")
        #expect(origin == api.baseURL)
        #expect(!"\(error!)".contains("\n"))
        #expect(api.requests.count == 1)
        #expect(elsewhere.requests.isEmpty)
        #expect(!logs.text.contains("following redirect"))
    }

    @Test func aRefusedRedirectNeverShowsCredentialsFromTheLocation() async throws {
        let api = try HostileServer { _, connection in
            connection.respond(
                status: 302, reason: "Found",
                headers: [("Location", "http://admin:hunter2@127.0.0.2:1/x")], body: [])
        }
        defer { api.stop() }
        let client = try Self.client(api.baseURL)
        let error = await #expect(throws: GitHubError.self) { try await client.repository(Self.repository) }
        let message = error.map { "\($0)" } ?? ""
        #expect(message.contains("refused a redirect"), "\(message)")
        #expect(!message.contains("hunter2") && !message.contains("admin"), "\(message)")
    }

    // MARK: - Token hygiene

    static let hostileTokens = ["abc\r\nX-Evil: 1", "abc\nX-Evil: 1", "a b", "a\tb", "abc\0def", "abc\u{7F}", "abc\u{85}def", "a\u{200B}b"]

    @Test(arguments: hostileTokens)
    func controlCharactersAndWhitespaceAreRefusedFromEverySource(_ value: String) throws {
        let directory = try TemporaryDirectory()
        let credentials = directory.path("credentials")
        try FileManager.default.createDirectory(atPath: credentials, withIntermediateDirectories: true)
        let credentialFile = credentials + "/" + GitHubToken.credentialName
        try value.write(toFile: credentialFile, atomically: true, encoding: .utf8)
        let tokenFile = try directory.write("token", value + "\n")
        chmod(tokenFile, 0o600)
        chmod(credentialFile, 0o600)

        let sources: [(String, () throws -> GitHubToken?)] = [
            ("environment variable GITHUB_TOKEN", { try GitHubToken.resolve(environment: ["GITHUB_TOKEN": value]) }),
            ("environment variable GH_TOKEN", { try GitHubToken.resolve(environment: ["GH_TOKEN": value]) }),
            ("file \(credentialFile)", { try GitHubToken.resolve(environment: ["CREDENTIALS_DIRECTORY": credentials]) }),
            ("file \(tokenFile)", { try GitHubToken.resolve(tokenFile: tokenFile, environment: [:]) }),
            ("file \(tokenFile)", { try GitHubToken.resolve(configuredFile: tokenFile, environment: [:]) }),
            ("file \(tokenFile)", { try GitHubToken.fromFile(tokenFile) }),
        ]
        for (source, resolve) in sources {
            let error = #expect(throws: GitHubToken.TokenError.self, "\(source)") { try resolve() }
            guard case .invalidCharacters(let named)? = error else {
                Issue.record("\(source): expected invalidCharacters, got \(String(describing: error))")
                continue
            }
            #expect(named == source)
            let message = "\(error!)"
            #expect(message.hasPrefix("the token from \(source) contains a control character or whitespace;"), "\(message)")
            #expect(!message.contains("abc") && !message.contains("X-Evil") && !message.contains("\n"), "\(message)")
        }
    }

    @Test func surroundingWhitespaceIsTrimmedNotRefused() throws {
        let directory = try TemporaryDirectory()
        let tokenFile = try directory.write("token", "\n  \(SecretScan.token)  \r\n\n")
        chmod(tokenFile, 0o600)
        #expect(try GitHubToken.fromFile(tokenFile).value == SecretScan.token)
        #expect(try GitHubToken.resolve(environment: ["GITHUB_TOKEN": " \(SecretScan.token)\n"])?.value == SecretScan.token)
        #expect(try GitHubToken.resolve(environment: ["GH_TOKEN": "\t\(SecretScan.token)\r\n"])?.value == SecretScan.token)
    }

    // MARK: - Redaction

    @Test func redactReplacesTheTokenRawAndPercentEncoded() throws {
        let plain = try Self.client("https://api.example.com")
        #expect(plain.redact("Forbidden for Bearer \(SecretScan.token).") == "Forbidden for Bearer [REDACTED].")
        #expect(plain.redact("no secret here") == "no secret here")

        let special = GitHubToken(value: "tok/en+1=2&x", source: "environment variable GITHUB_TOKEN")
        let client = try Self.client("https://api.example.com", token: special)
        #expect(client.redact("a tok/en+1=2&x b") == "a [REDACTED] b")
        #expect(client.redact("?t=tok%2Fen%2B1%3D2%26x&u=1") == "?t=[REDACTED]&u=1")
        #expect(client.redact("?t=tok%2fen%2b1%3d2%26x") == "?t=[REDACTED]")

        // A toy token ("t" in tests) would match ordinary text: left alone rather than mangling URLs.
        let toy = try Self.client("https://api.example.com", token: GitHubToken(value: "t", source: "environment variable GITHUB_TOKEN"))
        #expect(toy.redact("https://api.example.com/repos/o/r/commits?page=2") == "https://api.example.com/repos/o/r/commits?page=2")

        let anonymous = try Self.client("https://api.example.com", token: nil)
        #expect(anonymous.redact("Bearer \(SecretScan.token)") == "Bearer \(SecretScan.token)")
    }

    /// A server that echoes the token back, in each place server text can reach an error or a log.
    @Test(arguments: [
        ("a 403 message", 403, #"{"message":"Forbidden for Bearer TOKEN"}"#),
        (
            "a 422 message and field errors", 422,
            #"{"message":"Validation Failed for TOKEN","errors":[{"field":"sha","code":"invalid","message":"TOKEN"}]}"#
        ),
        ("a 418 body", 418, "you sent Bearer TOKEN\r\nand more"),
        ("an unexpected status without JSON", 410, "<h1>gone, TOKEN</h1>"),
        ("a 500 page", 500, "Bearer TOKEN"),
    ])
    func serverTextIsRedactedInErrorsAndLogs(_ name: String, status: Int, body: String) async throws {
        let api = try HostileServer { request, connection in
            let echoed = (request.authorization ?? "none").replacingOccurrences(of: "Bearer ", with: "")
            connection.respond(
                status: status, reason: "No",
                body: Array(body.replacingOccurrences(of: "TOKEN", with: echoed).utf8))
        }
        defer { api.stop() }
        let logs = LogCapture()
        let client = try Self.client(api.baseURL, logs: logs)
        let error = await #expect(throws: GitHubError.self) { try await client.repository(Self.repository) }
        let message = error.map { "\($0)" } ?? ""
        #expect(api.requests.first?.authorization == "Bearer \(SecretScan.token)", "the server did see the token")
        #expect(message.contains("[REDACTED]") || status == 500, "\(name): \(message)")
        #expect(!message.contains("\n") && !message.contains("\r"), "\(name): \(message)")
        #expect(SecretScan.leaks(in: ["error": message, "logs": logs.text]).isEmpty, "\(name): \(message)")
    }

    @Test func aMalformedLinkHeaderEchoingTheTokenIsRedacted() async throws {
        let api = try HostileServer { request, connection in
            connection.respond(
                status: 200, headers: [("Link", "garbage \(request.authorization ?? "") <<>>")],
                body: Array("[]".utf8))
        }
        defer { api.stop() }
        let logs = LogCapture()
        let client = try Self.client(api.baseURL, logs: logs)
        let error = await #expect(throws: GitHubError.self) {
            try await client.commitsPage(url: api.baseURL + "/repos/o/r/commits", repository: Self.repository)
        }
        let message = error.map { "\($0)" } ?? ""
        #expect(message.contains("malformed Link header: garbage Bearer [REDACTED]"), "\(message)")
        #expect(SecretScan.leaks(in: ["error": message, "logs": logs.text]).isEmpty)
    }

    @Test func aNextLinkCarryingTheTokenIsRedactedBeforeTheEngineSeesIt() async throws {
        let api = try HostileServer { request, connection in
            let token = (request.authorization ?? "").replacingOccurrences(of: "Bearer ", with: "")
            connection.respond(
                status: 200,
                headers: [("Link", "<http://\(request.headers["host"] ?? "")/repos/o/r/commits?page=2&t=\(token)>; rel=\"next\"")],
                body: Array("[]".utf8))
        }
        defer { api.stop() }
        let client = try Self.client(api.baseURL)
        let page = try await client.commitsPage(url: api.baseURL + "/repos/o/r/commits", repository: Self.repository)
        let next = try #require(page.links?.next)
        #expect(next.hasSuffix("t=[REDACTED]"), "\(next)")
    }

    // MARK: - Every wait is capped

    static func rateLimited(status: Int = 403, headers: [(String, String)], message: String = "You have exceeded a secondary rate limit.")
        throws -> HostileServer
    {
        try HostileServer { _, connection in
            connection.respond(
                status: status, reason: "Forbidden", headers: headers,
                body: Array(#"{"message":"\#(message)"}"#.utf8))
        }
    }

    @Test func aHugeRetryAfterIsThrownAtOnceNotSlept() async throws {
        let api = try Self.rateLimited(headers: [("retry-after", "1000000000")])
        defer { api.stop() }
        let client = try Self.client(api.baseURL)

        let error = await #expect(throws: GitHubError.self) { try await client.repository(Self.repository) }
        // No pause at all; the time bound is generous because a loaded machine runs many suites at once.
        #expect(client.usage.retries == 0)
        guard case .retryAfterTooLong(let retryAt, let limit)? = error else {
            Issue.record("expected retryAfterTooLong, got \(String(describing: error))")
            return
        }
        #expect(error?.isRateLimit == true)
        #expect(limit == .seconds(15 * 60))
        #expect(retryAt.timeIntervalSinceNow > 30 * 365 * 86_400)
        #expect("\(error!)".contains("retry later"))
        #expect(api.requests.count == 1)
    }

    @Test func aRetryAfterBeyondTheInlineCapIsLeftToTheCaller() async throws {
        let api = try Self.rateLimited(headers: [("retry-after", "120")])
        defer { api.stop() }
        let client = try Self.client(api.baseURL) { $0.retry.maximumInlineWait = .seconds(60) }
        let error = await #expect(throws: GitHubError.self) { try await client.repository(Self.repository) }
        #expect(client.usage.retries == 0, "not slept: the 120 s are the caller's to schedule")
        guard case .retryAfterTooLong(let retryAt, let limit)? = error else {
            Issue.record("expected retryAfterTooLong, got \(String(describing: error))")
            return
        }
        #expect(limit == .seconds(60))
        #expect(abs(retryAt.timeIntervalSinceNow - 120) < 15)
        #expect(api.requests.count == 1)
    }

    @Test func theSecondaryBackoffWithoutRetryAfterStopsAtTheInlineCap() async throws {
        let api = try Self.rateLimited(headers: [])
        defer { api.stop() }
        let client = try Self.client(api.baseURL) { configuration in
            configuration.retry.secondaryLimitDelay = .milliseconds(40)
            configuration.retry.maximumInlineWait = .milliseconds(100)
            configuration.retry.maximumAttempts = 10
        }
        let error = await #expect(throws: GitHubError.self) { try await client.repository(Self.repository) }
        guard case .retryAfterTooLong? = error else {
            Issue.record("expected retryAfterTooLong, got \(String(describing: error))")
            return
        }
        // 40 ms and 80 ms are slept; 160 ms is over the 100 ms cap and thrown instead.
        #expect(api.requests.count == 3)
    }

    @Test func waitingForAResetInThePastIsBounded() async throws {
        let past = Int(Date().timeIntervalSince1970) - 600
        let api = try Self.rateLimited(
            headers: [
                ("x-ratelimit-limit", "5000"), ("x-ratelimit-remaining", "0"),
                ("x-ratelimit-reset", "\(past)"),
            ],
            message: "API rate limit exceeded for user ID 1.")
        defer { api.stop() }
        let client = try Self.client(api.baseURL) { $0.waitForRateLimit = true }
        let error = await #expect(throws: GitHubError.self) { try await client.repository(Self.repository) }
        guard case .primaryRateLimit? = error else {
            Issue.record("expected primaryRateLimit, got \(String(describing: error))")
            return
        }
        let attempts = client.configuration.retry.maximumAttempts
        #expect(api.requests.count <= attempts + 1, "\(api.requests.count) requests")
        #expect(api.requests.count >= 2, "--wait retries at least once")
        #expect(client.usage.retries == api.requests.count - 1)
    }

    @Test(arguments: ["\(Int(Date().timeIntervalSince1970) + 2 * 3600)", "99999999999999999999", "1e300", "inf", "nan"])
    func aResetBeyondOneWindowIsNotWaitedFor(_ reset: String) async throws {
        let api = try Self.rateLimited(
            headers: [
                ("x-ratelimit-limit", "5000"), ("x-ratelimit-remaining", "0"),
                ("x-ratelimit-reset", "\(reset)"),
            ],
            message: "API rate limit exceeded for user ID 1.")
        defer { api.stop() }
        let client = try Self.client(api.baseURL) { $0.waitForRateLimit = true }

        let error = await #expect(throws: GitHubError.self) { try await client.repository(Self.repository) }
        #expect(client.usage.retries == 0)
        guard case .primaryRateLimit? = error else {
            Issue.record("expected primaryRateLimit, got \(String(describing: error))")
            return
        }
        #expect("\(error!)".contains("GitHub API rate limit exhausted"))
        #expect(api.requests.count == 1)
    }
}
