import MirrorTestSupport
import Foundation
import Testing
@testable import MirrorCore

/// One kind of bad input from the network: which route misbehaves, how, and
/// what the error must say.
struct BadInputCase: Sendable, CustomTestStringConvertible {
    var name: String
    var route: MiniGitHub.Route = .listPage
    var handler: HostileServer.Handler
    /// Fragments the error's one-line message must contain.
    var expected: [String]
    /// At least one of these must appear too (a stall is "too slow" or "timed out", whichever limit trips first).
    var oneOf: [String] = []
    /// For endless bodies and headers: the most one response may push into the client.
    var boundedTo: Int?

    var testDescription: String { name }

    typealias Connection = HostileServer.Connection

    static let json = [("Content-Type", "application/json; charset=utf-8")]

    static func body(
        _ bytes: [UInt8], status: Int = 200, reason: String = "OK",
        headers: [(String, String)] = json
    ) -> HostileServer.Handler {
        { _, connection in connection.respond(status: status, reason: reason, headers: headers, body: bytes) }
    }

    static func raw(_ text: String) -> HostileServer.Handler {
        { _, connection in connection.send(text) }
    }

    static func element(_ mutate: (inout [String: Any]) -> Void) -> HostileServer.Handler {
        body(MiniGitHub.mutatedPage(mutate))
    }

    /// The client's body cap in these tests (the production default is 64 MiB).
    static let bodyLimit = 8 << 20

    static let all: [BadInputCase] = [
        // MARK: Malformed JSON and wrong shapes
        BadInputCase(
            name: "malformed JSON (cut off mid-object)",
            handler: body(Array(#"[{"sha":"0000000000000000000000000000000000000006","commit":{"author":"#.utf8)),
            expected: ["could not be read", "after 3 attempts", "invalid JSON"]),
        BadInputCase(
            name: "a JSON object where the page array belongs",
            handler: body(Array(#"{"message":"this is not a list of commits"}"#.utf8)),
            expected: ["could not be read", "wrong type at top level (expected Array"]),
        BadInputCase(
            name: "wrong type: sha is a number",
            handler: element { $0["sha"] = 1234567 },
            expected: ["could not be read", "wrong type at [0].sha"]),
        BadInputCase(
            name: "missing sha",
            handler: element { $0["sha"] = nil },
            expected: ["could not be read", "missing field 'sha'"]),
        BadInputCase(
            name: "a sha that is not 40 hex digits",
            handler: element { $0["sha"] = "../../etc/passwd" },
            expected: ["could not be read", "not a 40-hex commit sha"]),
        BadInputCase(
            name: "an invalid date",
            handler: element { element in
                var commit = element["commit"] as! [String: Any]
                var author = commit["author"] as! [String: Any]
                author["date"] = "2024-02-30 half past ten"
                commit["author"] = author
                element["commit"] = commit
            },
            expected: ["could not be read", "not an ISO 8601 date"]),
        BadInputCase(
            name: "a null message",
            handler: element { element in
                var commit = element["commit"] as! [String: Any]
                commit["message"] = NSNull()
                element["commit"] = commit
            },
            expected: ["could not be read", "null at [0].commit.message"]),
        BadInputCase(
            name: "wrong type: parents is a string",
            handler: element { $0["parents"] = "0000000000000000000000000000000000000005" },
            expected: ["could not be read", "wrong type at [0].parents"]),
        BadInputCase(
            name: "missing commit object",
            handler: element { $0["commit"] = nil },
            expected: ["could not be read", "missing field 'commit'"]),
        BadInputCase(
            name: "a 10 MB message (over the body cap)",
            handler: element { element in
                var commit = element["commit"] as! [String: Any]
                commit["message"] = String(repeating: "spam ", count: 2_000_000)
                element["commit"] = commit
            },
            expected: ["larger than \(bodyLimit) bytes", "a page of commits is far smaller"], boundedTo: bodyLimit + (16 << 20)),
        BadInputCase(
            name: "deeply nested JSON (100,000 levels)",
            handler: body(Array((String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)).utf8)),
            expected: ["could not be read", "invalid JSON"]),
        BadInputCase(
            name: "invalid UTF-8 inside a message",
            handler: body(
                Array(#"[{"sha":"0000000000000000000000000000000000000006","commit":{"message":"caf"#.utf8)
                    + [0xC3, 0x28, 0xFF, 0xFE] + Array(#""}}]"#.utf8)),
            expected: ["could not be read", "invalid JSON"]),
        BadInputCase(
            name: "an empty 200 body",
            handler: body([]),
            expected: ["could not be read", "an empty body"]),
        BadInputCase(
            name: "numbers out of range in the repository's id",
            route: .repository,
            handler: body(Array(#"{"id":1e400,"full_name":"acme/fresh","default_branch":"main"}"#.utf8)),
            expected: ["could not be read", "/repos/acme/fresh", "invalid JSON"]),
        BadInputCase(
            name: "wrong type in the repository's id",
            route: .repository,
            handler: body(Array(#"{"id":"forty-two","full_name":"acme/fresh","default_branch":"main"}"#.utf8)),
            expected: ["could not be read", "wrong type at .id"]),
        BadInputCase(
            name: "a head probe that answers HTML instead of a sha",
            route: .headProbe,
            handler: body(
                Array("<html><body>Welcome to the captive portal</body></html>".utf8),
                headers: [("Content-Type", "text/html")]),
            expected: ["could not be read", "expected a 40-hex sha"]),

        // MARK: HTTP-level misbehaviour
        BadInputCase(
            name: "an HTML 502 page",
            handler: body(
                Array("<html><head><title>502 Bad Gateway</title></head><body><h1>Bad Gateway</h1></body></html>".utf8),
                status: 502, reason: "Bad Gateway", headers: [("Content-Type", "text/html")]),
            expected: ["GitHub answered 502", "after 3 attempts", "retry later"]),
        BadInputCase(
            name: "an unexpected status (418)",
            handler: body(Array("short and stout".utf8), status: 418, reason: "I'm a teapot", headers: []),
            expected: ["GitHub answered 418", "short and stout"]),
        BadInputCase(
            name: "a garbage Link header",
            handler: body(
                MiniGitHub.page(from: 6, count: 3),
                headers: json + [("Link", "this is not; a link header, <>>")]),
            expected: ["could not be read", "malformed Link header"]),
        BadInputCase(
            name: "a Link whose next page is the page just read",
            handler: { request, connection in
                let selfURL = "http://\(request.headers["host"] ?? "")\(request.target)"
                connection.respond(
                    status: 200, headers: json + [("Link", "<\(selfURL)>; rel=\"next\"")],
                    body: MiniGitHub.page(from: 6, count: 3))
            },
            expected: ["pagination looped back to", "a page already read"]),
        BadInputCase(
            name: "a redirect loop (301 to itself)",
            handler: { request, connection in
                connection.respond(status: 301, reason: "Moved Permanently", headers: [("Location", request.target)], body: [])
            },
            expected: ["too many redirects starting at"]),
        BadInputCase(
            name: "a redirect without a Location",
            handler: body([], status: 302, reason: "Found", headers: []),
            expected: ["redirect without a Location"]),
        BadInputCase(
            name: "a redirect to a file:// URL",
            handler: body([], status: 302, reason: "Found", headers: [("Location", "file:///etc/passwd")]),
            expected: ["refused a redirect from", "to file:///etc/passwd", "outside the API origin"]),
        BadInputCase(
            name: "an endless chunked response",
            handler: { _, connection in
                guard connection.send("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n") else {
                    return
                }
                let chunk = Array((String(1 << 16, radix: 16) + "\r\n").utf8) + [UInt8](repeating: 0x20, count: 1 << 16) + [13, 10]
                var sent = 0
                while sent < 1 << 30, connection.send(chunk) { sent += chunk.count }
            },
            expected: ["larger than \(bodyLimit) bytes"], boundedTo: bodyLimit + (16 << 20)),
        BadInputCase(
            name: "endless response headers",
            handler: { _, connection in
                guard connection.send("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n") else { return }
                var n = 0
                while n < 1_000_000, connection.send("X-Filler-\(n): \(String(repeating: "a", count: 1000))\r\n") { n += 1 }
            },
            expected: ["could not reach", "after 3 attempts", "Too large response headers"], boundedTo: 16 << 20),
        BadInputCase(
            name: "one 2 MB header line",
            handler: raw("HTTP/1.1 200 OK\r\nX-Huge: \(String(repeating: "h", count: 2 << 20))\r\nContent-Length: 2\r\n\r\n[]"),
            expected: ["could not reach", "after 3 attempts", "a response header line longer than libcurl's 100 KB limit"],
            boundedTo: 16 << 20),
        BadInputCase(
            name: "a server that stalls mid-body",
            handler: { _, connection in
                let page = MiniGitHub.page(from: 6, count: 3)
                guard connection.send("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: \(page.count)\r\n\r\n") else {
                    return
                }
                connection.send(Array(page.prefix(page.count / 2)))
                connection.waitForHangUp()
            },
            expected: ["could not reach", "after 3 attempts"], oneOf: ["Operation too slow", "timed out"]),
        BadInputCase(
            name: "a server that accepts and never answers",
            handler: { _, connection in connection.waitForHangUp() },
            expected: ["could not reach", "after 3 attempts"], oneOf: ["Operation too slow", "timed out"]),
        BadInputCase(
            name: "a connection closed without any response",
            handler: { _, _ in },
            expected: ["could not reach", "after 3 attempts", "Empty reply from server"]),
        BadInputCase(
            name: "a body shorter than its Content-Length",
            handler: { _, connection in
                let page = MiniGitHub.page(from: 6, count: 3)
                connection.send("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: \(page.count + 500)\r\n\r\n")
                connection.send(page)
            },
            expected: ["could not reach", "after 3 attempts", "transfer closed"]),
        BadInputCase(
            name: "not HTTP at all (a garbage status line)",
            handler: raw("SSH-2.0-OpenSSH_9.2p1 Debian-2\r\nProtocol mismatch.\r\n"),
            expected: ["could not reach", "after 3 attempts", "HTTP/0.9"]),
        BadInputCase(
            name: "a gzip body that is not gzip",
            handler: body(
                Array("definitely not gzip, just text pretending".utf8),
                headers: json + [("Content-Encoding", "gzip")]),
            expected: ["could not reach", "after 3 attempts", "content unencoding"]),
        BadInputCase(
            name: "broken chunked encoding",
            handler: raw(
                "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nZZZ-not-hex\r\n[]\r\n0\r\n\r\n"),
            expected: ["could not reach", "after 3 attempts", "chunked-encoding"]),
        BadInputCase(
            name: "an invalid Content-Length",
            handler: raw("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: -42\r\n\r\n[]"),
            expected: ["could not reach", "after 3 attempts", "Invalid Content-Length"]),
    ]
}

/// Issue #6 "bad input from the network": a hostile server sends each kind of
/// garbage; every one ends in one clear error, in bounded time and memory,
/// with the mirrored data unchanged, and the next sync against a sane server
/// converges. The token (`SecretScan.token`) appears in no error, log line or
/// store byte.
@Suite struct BadInputTests {
    /// Short timeouts and few, fast retries: the behaviour is the production one, only quicker.
    static func client(_ github: MiniGitHub, logs: LogCapture, bodyLimit: Int = BadInputCase.bodyLimit) throws -> GitHubClient {
        var configuration = GitHubClient.Configuration(
            apiURL: github.baseURL, token: GitHubToken(value: SecretScan.token, source: "environment variable GITHUB_TOKEN"))
        configuration.retry.maximumAttempts = 3
        configuration.retry.baseDelay = .milliseconds(5)
        configuration.retry.maximumDelay = .milliseconds(20)
        configuration.http.connectTimeout = .seconds(2)
        configuration.http.timeout = .seconds(5)
        configuration.http.stallTimeout = .seconds(1)
        configuration.http.maximumBodySize = bodyLimit
        return try GitHubClient(configuration: configuration, logger: logs.logger())
    }

    static func sync(
        _ repository: String, github: MiniGitHub, store: String, logs: LogCapture,
        bodyLimit: Int = BadInputCase.bodyLimit
    ) async throws -> SyncReport {
        let engine = SyncEngine(
            client: try client(github, logs: logs, bodyLimit: bodyLimit),
            store: try MirrorStore(path: store), logger: logs.logger())
        return try await engine.sync(RepositoryName(parsing: repository)!)
    }

    @Test(arguments: BadInputCase.all)
    func refusedWithOneClearErrorAndTheStoreUnchanged(_ badInput: BadInputCase) async throws {
        let github = try MiniGitHub()
        defer { github.stop() }
        let directory = try TemporaryDirectory()
        let store = directory.path("commits.sqlite")
        let logs = LogCapture()

        // A mirror of three commits, then the branch moves to six and one route turns hostile.
        _ = try await Self.sync("acme/widgets", github: github, store: store, logs: logs)
        let before = try StoreInspection(store).mirroredFacts()
        #expect(before.count == 3)
        let repository = badInput.route == .repository ? "acme/fresh" : "acme/widgets"
        github.set(head: 6, hostile: (badInput.route, badInput.handler))

        let clock = ContinuousClock()
        let start = clock.now
        let error = await #expect(throws: (any Error).self) {
            try await Self.sync(repository, github: github, store: store, logs: logs)
        }
        let elapsed = clock.now - start
        let message = error.map { "\($0)" } ?? ""
        for fragment in badInput.expected {
            #expect(message.contains(fragment), "\(badInput.name): \(message)")
        }
        if !badInput.oneOf.isEmpty {
            #expect(badInput.oneOf.contains { message.contains($0) }, "\(badInput.name): \(message)")
        }
        #expect(!message.contains("\n"), "one line: \(message)")
        // Bounded: at worst 3 attempts of the 5 s transfer timeout, plus the backoff.
        // The bound is generous because a loaded CI machine runs many suites at once.
        #expect(elapsed < .seconds(120), "\(badInput.name) took \(elapsed)")
        if let bound = badInput.boundedTo {
            #expect(github.largestHostileResponse <= bound, "\(github.largestHostileResponse) bytes pushed")
        }
        #expect(try StoreInspection(store).mirroredFacts() == before, "the mirrored data must be unchanged")
        #expect(try StoreInspection(store).integrity() == "ok")

        // The same server, sane again: the next sync converges to the exact history.
        github.set(head: 6)
        let report = try await Self.sync(repository, github: github, store: store, logs: logs)
        #expect(report.complete)
        #expect(try StoreInspection(store).memberSHAs(of: repository) == Set((1...6).map(PayloadFixtures.sha)))

        #expect(SecretScan.leaks(in: ["error": message, "logs": logs.text]).isEmpty)
        #expect(SecretScan.leaks(inStoreAt: store).isEmpty)
        print(
            "bad input refused: \(badInput.name): \(String(format: "%.2f", Double(elapsed.components.attoseconds) / 1e18 + Double(elapsed.components.seconds))) s: \(message)"
        )
    }

    /// The same 10 MB message under the production body cap is valid GitHub
    /// data: it is mirrored whole, in bounded time, and reads back intact.
    @Test func aTenMegabyteMessageUnderTheDefaultCapIsMirroredWhole() async throws {
        let github = try MiniGitHub()
        defer { github.stop() }
        let directory = try TemporaryDirectory()
        let store = directory.path("commits.sqlite")
        let logs = LogCapture()
        let message = String(repeating: "spam ", count: 2_000_000)
        _ = try await Self.sync("acme/widgets", github: github, store: store, logs: logs)
        github.set(
            head: 6,
            hostile: (
                .listPage,
                BadInputCase.body(
                    MiniGitHub.mutatedPage { element in
                        var commit = element["commit"] as! [String: Any]
                        commit["message"] = message
                        element["commit"] = commit
                    })
            ))
        let start = ContinuousClock.now
        let report = try await Self.sync(
            "acme/widgets", github: github, store: store, logs: logs,
            bodyLimit: HTTPClientDefaults.maximumBodySize)
        #expect(ContinuousClock.now - start < .seconds(180))
        #expect(report.added == 3 && report.complete)
        let mirror = try MirrorReader(path: store)
        let stored = try mirror.db.prepare("SELECT message FROM commits WHERE sha = ?")
            .bind([PayloadFixtures.sha(6)]).first { $0.string(0) }
        #expect(stored == message)
    }

    /// A redirect to another host (here another port) is refused and never
    /// requested; one within the API origin is followed, with the token.
    @Test func redirectsStayWithinTheAPIOrigin() async throws {
        let github = try MiniGitHub()
        defer { github.stop() }
        let elsewhere = try HostileServer { request, connection in
            MiniGitHub.answer(request, route: MiniGitHub.route(of: request), head: 6, connection: connection)
        }
        defer { elsewhere.stop() }
        let directory = try TemporaryDirectory()
        let store = directory.path("commits.sqlite")
        let logs = LogCapture()
        _ = try await Self.sync("acme/widgets", github: github, store: store, logs: logs)
        github.set(
            head: 6,
            hostile: (
                .listPage,
                { request, connection in
                    connection.respond(
                        status: 307, reason: "Temporary Redirect",
                        headers: [("Location", elsewhere.baseURL + request.target)], body: [])
                }
            ))
        let error = await #expect(throws: GitHubError.self) {
            try await Self.sync("acme/widgets", github: github, store: store, logs: logs)
        }
        let message = error.map { "\($0)" } ?? ""
        #expect(message.contains("refused a redirect from \(github.baseURL)/repos/acme/widgets/commits"), "\(message)")
        #expect(message.contains("to \(elsewhere.baseURL)/repos/acme/widgets/commits"), "\(message)")
        #expect(elsewhere.requests.isEmpty, "the redirect elsewhere was requested")
        #expect(try StoreInspection(store).memberSHAs(of: "acme/widgets").count == 3)

        // The same origin, another path: followed, and the token goes along.
        github.set(
            head: 6,
            hostile: (
                .listPage,
                { request, connection in
                    if request.target.hasSuffix("&moved=1") {
                        MiniGitHub.answer(request, route: .listPage, head: 6, connection: connection)
                    } else {
                        connection.respond(
                            status: 301, reason: "Moved Permanently", headers: [("Location", request.target + "&moved=1")], body: [])
                    }
                }
            ))
        let report = try await Self.sync("acme/widgets", github: github, store: store, logs: logs)
        #expect(report.complete)
        #expect(try StoreInspection(store).memberSHAs(of: "acme/widgets").count == 6)
        #expect(github.server.requests.contains { $0.target.hasSuffix("&moved=1") })
        #expect(github.server.requests.allSatisfy { $0.authorization == "Bearer \(SecretScan.token)" })
        #expect(logs.text.contains("following redirect"))
        #expect(SecretScan.leaks(in: ["logs": logs.text, "error": message]).isEmpty)
        #expect(SecretScan.leaks(inStoreAt: store).isEmpty)
    }
}

enum HTTPClientDefaults {
    static var maximumBodySize: Int { GitHubClient.Configuration(apiURL: "http://x").http.maximumBodySize }
}
