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
