import Curl
import Dispatch
import Foundation
import MirrorCore
import Synchronization

/// A GitHub that lies: a proxy in front of a faithful `github-sim` that passes
/// every exchange through unchanged until a test sets a `tamper` function,
/// which may then rewrite the status, headers and body of any answer (an empty
/// page, a listing without its head, a poisoned `Link`, an echoed token …).
///
/// Separate from github-sim's own endpoints on purpose: the client is tested
/// against answers the simulator would never give. Upstream URLs in `Link` and
/// `Location` are rewritten to the proxy, so pagination runs through it.
public final class HostileGitHub: @unchecked Sendable {
    /// One answer on its way to the client; `tamper` may change any part.
    public struct Answer: Sendable {
        public var status: Int
        public var headers: [(String, String)]
        public var body: [UInt8]

        public func header(_ name: String) -> String? {
            headers.first { $0.0.lowercased() == name.lowercased() }?.1
        }

        public mutating func setHeader(_ name: String, _ value: String?) {
            headers.removeAll { $0.0.lowercased() == name.lowercased() }
            if let value { headers.append((name, value)) }
        }

        public var text: String {
            get { String(decoding: body, as: UTF8.self) }
            set { body = Array(newValue.utf8) }
        }

        /// The body as a JSON array of objects (a commits page), for editing.
        public var elements: [[String: Any]] {
            get { (try? JSONSerialization.jsonObject(with: Data(body))) as? [[String: Any]] ?? [] }
            set { body = Array((try? JSONSerialization.data(withJSONObject: newValue)) ?? Data("[]".utf8)) }
        }
    }

    public typealias Tamper = @Sendable (HostileServer.Request, inout Answer) -> Void

    public let upstream: String
    private let server: HostileServer
    private let tamperBox = Mutex<Tamper?>(nil)
    private let client = try! HTTPClient()
    /// Where the forwarding tasks run (shared by every proxy of the test process).
    private static let forwarding = DedicatedThreads(name: "hostile-proxy", count: 2)

    public var baseURL: String { server.baseURL }
    /// Every request the proxy received, in order.
    public var requests: [HostileServer.Request] { server.requests }
    /// The most requests the proxy was answering at once (the client promises one at a time).
    public var mostRequestsAtOnce: Int { inFlight.withLock { $0.most } }
    private let inFlight = Mutex<(now: Int, most: Int)>((0, 0))

    public init(upstream: String) throws {
        self.upstream = upstream
        let box = Mutex<HostileGitHub?>(nil)
        server = try HostileServer { request, connection in
            box.withLock { $0 }?.forward(request, to: connection)
        }
        box.withLock { $0 = self }
    }

    /// Starts (or, with `nil`, stops) lying.
    public func tamper(_ tamper: Tamper?) {
        tamperBox.withLock { $0 = tamper }
    }

    public func stop() { server.stop() }

    private func forward(_ request: HostileServer.Request, to connection: HostileServer.Connection) {
        inFlight.withLock { state in
            state.now += 1
            state.most = max(state.most, state.now)
        }
        // Answered once its response starts: the client may send its next request as soon
        // as this one's response is in, before this thread would get to count it done.
        var answered = false
        func answering() {
            if !answered { inFlight.withLock { $0.now -= 1 } }
            answered = true
        }
        defer { answering() }
        var headers: HTTPHeaders = []
        for (name, value) in request.headers where !["host", "connection", "accept-encoding", "content-length"].contains(name) {
            headers.add(name: name, value: value)
        }
        let upstreamRequest = HTTPRequest(url: upstream + request.target, method: request.method, headers: headers)
        let result = Mutex<Result<HTTPResponse, any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        let client = self.client
        // On threads of the proxy's own: this thread waits for the answer, and a
        // test process's cooperative pool, busy with the rest of the suite, made
        // every proxied request wait its turn there twice (seconds each under load).
        Task(executorPreference: Self.forwarding) {
            let outcome = await Result(catching: { try await client.send(upstreamRequest) })
            result.withLock { $0 = outcome }
            done.signal()
        }
        done.wait()
        guard case .success(let response) = result.withLock({ $0 }) else {
            answering()
            connection.respond(status: 502, reason: "Bad Gateway", body: Array("upstream failed".utf8))
            return
        }
        var answer = Answer(status: response.status, headers: [], body: response.body)
        for (name, value) in response.headers
        where !["content-length", "content-encoding", "transfer-encoding", "connection"].contains(name.lowercased()) {
            answer.headers.append((name, value.replacingOccurrences(of: upstream, with: baseURL)))
        }
        if let tamper = tamperBox.withLock({ $0 }) { tamper(request, &answer) }
        answering()
        connection.respond(status: answer.status, reason: "Hostile", headers: answer.headers, body: answer.body)
    }
}

extension Result where Failure == any Error {
    init(catching body: () async throws -> Success) async {
        do { self = .success(try await body()) } catch { self = .failure(error) }
    }
}
