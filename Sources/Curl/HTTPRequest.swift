import CCurl

/// One HTTP request for `HTTPClient.send(_:)`. Redirects are never followed by
/// the transport: callers see 3xx responses and decide (e.g. which headers may
/// cross to another host).
public struct HTTPRequest: Sendable {
    public var url: String
    public var method: String
    public var headers: HTTPHeaders
    /// Sent as the request body (e.g. with POST); `nil` sends none.
    public var body: [UInt8]?
    /// Longest time for this request, connection included; `nil` keeps the
    /// client's `Configuration.timeout`.
    public var timeout: Duration?

    public init(url: String, method: String = "GET", headers: HTTPHeaders = [], body: [UInt8]? = nil, timeout: Duration? = nil) {
        self.url = url
        self.method = method
        self.headers = headers
        self.body = body
        self.timeout = timeout
    }
}

extension HTTPRequest {
    /// Refuses a URL or header field holding CR, LF or NUL before any transfer:
    /// libcurl would send such a value as more header lines (or cut it at the NUL).
    /// The message names the field, never its value (it may be a token).
    func checkFields() throws {
        func isUnsafe(_ text: String) -> Bool {
            text.utf8.contains { $0 == 0x0D || $0 == 0x0A || $0 == 0x00 }
        }
        if isUnsafe(url) {
            throw CurlError(code: CURLE_BAD_FUNCTION_ARGUMENT, detail: "the request URL contains CR, LF or NUL; refused before sending")
        }
        for (name, value) in headers where isUnsafe(name) || isUnsafe(value) {
            let shown = isUnsafe(name) ? "a request header name" : "the value of request header \(name)"
            throw CurlError(code: CURLE_BAD_FUNCTION_ARGUMENT, detail: "\(shown) contains CR, LF or NUL; refused before sending")
        }
    }
}
