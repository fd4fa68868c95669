/// One HTTP request for `HTTPClient.send(_:)`. Redirects are never followed by
/// the transport: callers see 3xx responses and decide (e.g. which headers may
/// cross to another host).
public struct HTTPRequest: Sendable {
    public var url: String
    public var method: String
    public var headers: HTTPHeaders
    /// Sent as the request body (e.g. with POST); `nil` sends none.
    public var body: [UInt8]?

    public init(url: String, method: String = "GET", headers: HTTPHeaders = [], body: [UInt8]? = nil) {
        self.url = url
        self.method = method
        self.headers = headers
        self.body = body
    }
}
