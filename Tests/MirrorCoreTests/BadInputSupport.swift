import MirrorTestSupport
import Foundation
import Logging
import SQLite
import Synchronization
@testable import MirrorCore

/// A tiny GitHub on a `HostileServer`: one linear history `sha(1) ← sha(2) ← …`
/// for every `acme/NAME`, a head tests move, and at most one route replaced by
/// a misbehaving one.
final class MiniGitHub: Sendable {
    enum Route: Sendable { case repository, headProbe, listPage }

    struct State {
        var head = 3
        var hostile: (route: Route, handler: HostileServer.Handler)?
        /// The most bytes one hostile response managed to send before the client hung up.
        var largestHostileResponse = 0
        var hostileRequests = 0
    }

    /// Shared with the server's handler (a `Mutex` cannot be captured by itself).
    private final class Box: Sendable {
        let state = Mutex(State())
    }

    let server: HostileServer
    private let box = Box()

    init() throws {
        let box = self.box
        server = try HostileServer { request, connection in
            let (head, hostile) = box.state.withLock { ($0.head, $0.hostile) }
            let route = MiniGitHub.route(of: request)
            if let hostile, hostile.route == route {
                hostile.handler(request, connection)
                box.state.withLock {
                    $0.hostileRequests += 1
                    $0.largestHostileResponse = max($0.largestHostileResponse, connection.bytesSent)
                }
                return
            }
            MiniGitHub.answer(request, route: route, head: head, connection: connection)
        }
    }

    var baseURL: String { server.baseURL }
    func stop() { server.stop() }

    func set(head: Int, hostile: (route: Route, handler: HostileServer.Handler)? = nil) {
        box.state.withLock {
            $0.head = head
            $0.hostile = hostile
        }
    }

    var largestHostileResponse: Int { box.state.withLock { $0.largestHostileResponse } }
    var hostileRequests: Int { box.state.withLock { $0.hostileRequests } }

    static func route(of request: HostileServer.Request) -> Route? {
        let parts = request.path.split(separator: "/")
        guard parts.count >= 3, parts[0] == "repos" else { return nil }
        switch parts.count {
        case 3: return .repository
        case 4 where parts[3] == "commits": return .listPage
        case 5 where parts[3] == "commits": return .headProbe
        default: return nil
        }
    }

    /// What GitHub would answer.
    static func answer(_ request: HostileServer.Request, route: Route?, head: Int, connection: HostileServer.Connection) {
        let json = [("Content-Type", "application/json; charset=utf-8")]
        switch route {
        case .repository:
            let parts = request.path.split(separator: "/")
            let body =
                #"{"id":\#(abs(parts[2].hashValue % 100_000) + 1),"full_name":"\#(parts[1])/\#(parts[2])","default_branch":"main","html_url":"https://github.com/\#(parts[1])/\#(parts[2])"}"#
            connection.respond(status: 200, headers: json, body: Array(body.utf8))
        case .headProbe:
            let sha = PayloadFixtures.sha(head)
            if request.headers["if-none-match"] == "\"\(sha)\"" {
                connection.respond(status: 304, reason: "Not Modified", body: [])
            } else {
                connection.respond(status: 200, headers: [("Content-Type", "application/vnd.github.sha")], body: Array(sha.utf8))
            }
        case .listPage:
            let pinned = request.target.split(separator: "?").dropFirst().first?.split(separator: "&")
                .first { $0.hasPrefix("sha=") }.map { String($0.dropFirst(4)) }
            let top = (1...max(1, head)).first { PayloadFixtures.sha($0) == pinned } ?? head
            connection.respond(status: 200, headers: json, body: page(from: top, count: 100))
        case nil:
            connection.respond(status: 404, reason: "Not Found", headers: json, body: Array(#"{"message":"Not Found"}"#.utf8))
        }
    }

    /// Commits `top`, `top - 1`, … (at most `count`), each the child of the next.
    static func page(from top: Int, count: Int) -> [UInt8] {
        PayloadFixtures.page(stride(from: top, to: max(0, top - count), by: -1).map(element))
    }

    static func element(_ n: Int) -> String {
        PayloadFixtures.element(
            sha: PayloadFixtures.sha(n), message: "Commit \(n)\n\nBody of commit \(n).",
            date: String(format: "2024-01-%02dT10:00:00Z", min(28, n)),
            parents: n > 1 ? [PayloadFixtures.sha(n - 1)] : [])
    }

    /// A page of `top…top-2` whose first element went through `mutate`.
    static func mutatedPage(top: Int = 6, _ mutate: (inout [String: Any]) -> Void) -> [UInt8] {
        var elements = (0..<3).map { try! JSONSerialization.jsonObject(with: Data(element(top - $0).utf8)) as! [String: Any] }
        mutate(&elements[0])
        return Array(try! JSONSerialization.data(withJSONObject: elements))
    }
}

/// Log lines captured at every level, to prove what a run logged (and did not).
final class LogCapture: Sendable {
    private let lines = Mutex<[String]>([])

    var text: String { lines.withLock { $0.joined(separator: "\n") } }

    func logger(level: Logger.Level = .trace) -> Logger {
        var logger = Logger(label: "capture") { [self] label in Handler(capture: self) }
        logger.logLevel = level
        return logger
    }

    fileprivate func append(_ line: String) { lines.withLock { $0.append(line) } }

    struct Handler: LogHandler {
        let capture: LogCapture
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            let merged = metadata.merging(event.metadata ?? [:]) { _, new in new }
            let fields = merged.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
            capture.append("\(event.level) \(event.message) \(fields)")
        }
    }
}
