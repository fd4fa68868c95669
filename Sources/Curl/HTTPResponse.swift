/// A complete HTTP response: status, every header of the final response, body.
public struct HTTPResponse: Sendable {
    public var status: Int
    public var headers: HTTPHeaders
    public var body: [UInt8]
    /// New connections this request had to open (0 = a kept-alive one was reused).
    public var newConnections: Int

    public init(status: Int, headers: HTTPHeaders, body: [UInt8], newConnections: Int = 0) {
        self.status = status
        self.headers = headers
        self.body = body
        self.newConnections = newConnections
    }
}
