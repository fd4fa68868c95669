/// One HTTP request for `HTTPClient.send(_:)`. Redirects are never followed by
/// the transport: callers see 3xx responses and decide (e.g. which headers may
/// cross to another host).
public struct HTTPRequest: Sendable {
    public var url: String
    public var method: String
    public var headers: HTTPHeaders

    public init(url: String, method: String = "GET", headers: HTTPHeaders = []) {
        self.url = url
        self.method = method
        self.headers = headers
    }
}
