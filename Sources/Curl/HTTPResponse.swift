/// A complete HTTP response: status, every header of the final response, body.
public struct HTTPResponse: Sendable {
    public var status: Int
    public var headers: HTTPHeaders
    public var body: [UInt8]

    public init(status: Int, headers: HTTPHeaders, body: [UInt8]) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}
