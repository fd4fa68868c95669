import Foundation
import Synchronization
#if canImport(Glibc)
    import Glibc
#endif

/// A deliberately misbehaving HTTP/1.1 server on 127.0.0.1 (ephemeral port),
/// for bad-input tests: github-sim imitates GitHub faithfully, this sends
/// whatever bytes a test asks for — endless bodies, stalls, giant headers,
/// garbage — over a raw POSIX socket.
///
/// One thread accepts; each connection gets its own thread, which reads one
/// request head, hands it to `handler` and closes the socket when the handler
/// returns. Writes use `MSG_NOSIGNAL`, so a client hanging up never raises
/// SIGPIPE in the test process.
public final class HostileServer: @unchecked Sendable {
    public struct Request: Sendable {
        public var method: String
        /// The request target as sent: path and query.
        public var target: String
        public var headers: [String: String]  // lowercased names

        public var path: String { String(target.prefix { $0 != "?" }) }
        public var authorization: String? { headers["authorization"] }
    }

    /// One accepted connection, handed to the handler.
    public final class Connection: @unchecked Sendable {
        public let descriptor: Int32
        /// Bytes the kernel accepted on this connection.
        public private(set) var bytesSent = 0

        public init(descriptor: Int32) { self.descriptor = descriptor }

        /// Sends everything, or returns false once the peer is gone.
        @discardableResult
        public func send(_ bytes: [UInt8]) -> Bool {
            var offset = 0
            while offset < bytes.count {
                let written = bytes[offset...].withUnsafeBytes {
                    Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
                }
                if written < 0 {
                    if errno == EINTR { continue }
                    return false
                }
                offset += written
                bytesSent += written
            }
            return true
        }

        @discardableResult
        public func send(_ text: String) -> Bool { send(Array(text.utf8)) }

        /// A complete response with Content-Length and `Connection: close`.
        @discardableResult
        public func respond(status: Int, reason: String = "OK", headers: [(String, String)] = [], body: [UInt8]) -> Bool {
            var head = "HTTP/1.1 \(status) \(reason)\r\n"
            for (name, value) in headers { head += "\(name): \(value)\r\n" }
            head += "Content-Length: \(body.count)\r\nConnection: close\r\n\r\n"
            return send(Array(head.utf8) + body)
        }

        /// Waits (up to `limit`) until the client hangs up: a server that stalls.
        public func waitForHangUp(limit: Duration = .seconds(60)) {
            let deadline = ContinuousClock.now + limit
            var buffer = [UInt8](repeating: 0, count: 4096)
            while ContinuousClock.now < deadline {
                var descriptor = pollfd(fd: self.descriptor, events: Int16(POLLIN), revents: 0)
                let ready = poll(&descriptor, 1, 100)
                if ready > 0 {
                    let count = recv(self.descriptor, &buffer, buffer.count, 0)
                    if count <= 0 { return }
                }
            }
        }
    }

    public typealias Handler = @Sendable (Request, Connection) -> Void

    public let port: Int
    /// The loopback address it listens on (127.0.0.2 plays "another host").
    public let address: String
    public var baseURL: String { "http://\(address):\(port)" }
    private let listener: Int32
    private let handler: Handler
    private let log = Mutex<[Request]>([])
    private let stopped = Atomic<Bool>(false)

    public init(address: String = "127.0.0.1", handler: @escaping Handler) throws {
        self.handler = handler
        self.address = address
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        var yes: Int32 = 1
        setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var socketAddress = sockaddr_in()
        socketAddress.sin_family = sa_family_t(AF_INET)
        socketAddress.sin_port = 0
        socketAddress.sin_addr.s_addr = inet_addr(address)
        let bound = withUnsafePointer(to: &socketAddress) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, listen(descriptor, 64) == 0 else {
            close(descriptor)
            throw POSIXError(.init(rawValue: errno) ?? .EIO)
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &socketAddress) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        listener = descriptor
        port = Int(UInt16(bigEndian: socketAddress.sin_port))
        let thread = Thread { [self] in acceptLoop() }
        thread.name = "hostile-server-\(port)"
        thread.start()
    }

    deinit { stop() }

    /// Every request received so far, in order.
    public var requests: [Request] { log.withLock { $0 } }

    public func stop() {
        guard !stopped.exchange(true, ordering: .relaxed) else { return }
        // Wakes the blocked accept().
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    private func acceptLoop() {
        while !stopped.load(ordering: .relaxed) {
            let client = accept(listener, nil, nil)
            if client < 0 {
                if errno == EINTR { continue }
                return
            }
            let thread = Thread { [self] in serve(client) }
            thread.start()
        }
    }

    private func serve(_ descriptor: Int32) {
        defer { close(descriptor) }
        var head = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 4096)
        let terminator: [UInt8] = [13, 10, 13, 10]
        while !head.ends(with: terminator) && head.count < 1 << 16 {
            let count = recv(descriptor, &buffer, 1, 0)  // byte by byte: never read past the head
            if count <= 0 { return }
            head.append(buffer[0])
        }
        let lines = String(decoding: head, as: UTF8.self).components(separatedBy: "\r\n")
        let requestLine = lines.first?.split(separator: " ") ?? []
        guard requestLine.count >= 2 else { return }
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        let request = Request(method: String(requestLine[0]), target: String(requestLine[1]), headers: headers)
        log.withLock { $0.append(request) }
        handler(request, Connection(descriptor: descriptor))
    }
}

private extension Array where Element == UInt8 {
    func ends(with suffix: [UInt8]) -> Bool {
        count >= suffix.count && Array(self[(count - suffix.count)...]) == suffix
    }
}

extension HostileServer {
    /// A server answering every request with `301 Moved Permanently` to `location`.
    public static func redirecting(to location: String) throws -> HostileServer {
        try HostileServer { _, connection in
            connection.respond(status: 301, reason: "Moved Permanently", headers: [("Location", location)], body: [])
        }
    }
}
