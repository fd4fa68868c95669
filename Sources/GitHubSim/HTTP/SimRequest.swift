// A request as the simulator's logic sees it, independent of the NIO pipeline.

import NIOCore
import NIOHTTP1

struct SimRequest: Sendable {
    var method: HTTPMethod
    /// The path without the query, undecoded.
    var path: String
    /// The raw query without `?`, or nil when the URI had none.
    var query: String?
    var headers: HTTPHeaders
    var body: ByteBuffer?
    /// The client's IP address, the unauthenticated rate-limit key.
    var remoteIP: String

    init(method: HTTPMethod = .GET, uri: String, headers: HTTPHeaders = [:], body: ByteBuffer? = nil, remoteIP: String = "127.0.0.1") {
        self.method = method
        if let mark = uri.firstIndex(of: "?") {
            path = String(uri[..<mark])
            query = String(uri[uri.index(after: mark)...])
        } else {
            path = uri
            query = nil
        }
        self.headers = headers
        self.body = body
        self.remoteIP = remoteIP
    }

    /// The first value of query parameter `name`, percent-decoded.
    func queryValue(_ name: String) -> String? {
        guard let query else { return nil }
        for piece in query.split(separator: "&") {
            let (key, value) = QueryString.split(piece)
            if QueryString.decode(key) == name { return QueryString.decode(value ?? "") }
        }
        return nil
    }

    /// `?query` or the empty string, for echoing the query in a Location.
    var querySuffix: String { query.map { "?\($0)" } ?? "" }

    func header(_ name: String) -> String? { headers.first(name: name) }
}

enum QueryString {
    /// Splits `key=value`; the value is nil when there is no `=`.
    static func split(_ piece: Substring) -> (key: Substring, value: Substring?) {
        guard let eq = piece.firstIndex(of: "=") else { return (piece, nil) }
        return (piece[..<eq], piece[piece.index(after: eq)...])
    }

    /// Percent-decoding; in a query `+` is a space, as form-encoded queries (and GitHub's Rails) read them.
    static func decode(_ text: some StringProtocol, plusAsSpace: Bool = true) -> String {
        let utf8 = Array(text.utf8)
        guard utf8.contains(where: { $0 == UInt8(ascii: "%") || $0 == UInt8(ascii: "+") }) else { return String(text) }
        var out = [UInt8]()
        out.reserveCapacity(utf8.count)
        var i = 0
        while i < utf8.count {
            let c = utf8[i]
            if c == UInt8(ascii: "+") && plusAsSpace {
                out.append(UInt8(ascii: " "))
            } else if c == UInt8(ascii: "%"), i + 2 < utf8.count, let v = Hex.parse(utf8[(i + 1)...(i + 2)]) {
                out.append(UInt8(v))
                i += 2
            } else {
                out.append(c)
            }
            i += 1
        }
        return String(decoding: out, as: UTF8.self)
    }
}
