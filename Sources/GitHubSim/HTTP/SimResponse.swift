// A response before it reaches the wire, plus the builders for GitHub's error shapes.

import NIOCore
import NIOHTTP1

struct SimResponse: Sendable {
    enum Disposition: Sendable {
        case complete
        /// Declare the full Content-Length, send about half the body, close.
        case truncate
        /// Close the connection without answering.
        case reset
    }

    var status: HTTPResponseStatus
    var headers = HTTPHeaders()
    var body: ByteBuffer?
    /// A body too large to hold, sent chunked as the connection drains it (instead of `body`).
    var streamedBody: (any StreamedBody)?
    /// Wait this long before answering (slow-server fault).
    var delay: Duration = .zero
    /// Held until the fault plan of this generation is replaced (`HeldResponses`), then answered.
    var heldUntilPlanOf: Int?
    var disposition: Disposition = .complete

    init(status: HTTPResponseStatus, headers: HTTPHeaders = HTTPHeaders(), body: ByteBuffer? = nil) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    static let defaultDocumentationURL = "https://docs.github.com/rest"

    static func json(_ status: HTTPResponseStatus = .ok, _ body: ByteBuffer) -> SimResponse {
        var response = SimResponse(status: status, body: body)
        response.headers.add(name: "Content-Type", value: "application/json; charset=utf-8")
        return response
    }

    /// `{"message":…,"documentation_url":…,"status":"<code>"}`, GitHub's error body since about 2024.
    static func error(
        _ status: HTTPResponseStatus, _ message: String, documentationURL: String = defaultDocumentationURL
    ) -> SimResponse {
        var body = ByteBuffer()
        body.writeStaticString("{\"message\":")
        body.writeJSONString(message)
        body.writeStaticString(",\"documentation_url\":")
        body.writeJSONString(documentationURL)
        body.writeString(",\"status\":\"\(status.code)\"}")
        return json(status, body)
    }

    static func notFound() -> SimResponse {
        error(.notFound, "Not Found", documentationURL: "https://docs.github.com/rest")
    }

    /// 409 as GitHub answers a commits endpoint of a repository with no commits; `section` is
    /// the endpoint's anchor on the commits page of the REST documentation.
    static func emptyRepository(section: String) -> SimResponse {
        error(.conflict, "Git Repository is empty.", documentationURL: "https://docs.github.com/rest/commits/commits#" + section)
    }

    /// 301 as GitHub sends it for a renamed or transferred repository.
    static func movedPermanently(to location: String) -> SimResponse {
        var body = ByteBuffer()
        body.writeStaticString("{\"message\":\"Moved Permanently\",\"url\":")
        body.writeJSONString(location)
        body.writeStaticString(",\"documentation_url\":\"https://docs.github.com/v3/#http-redirects\"}")
        var response = json(.movedPermanently, body)
        response.headers.add(name: "Location", value: location)
        return response
    }

    /// The HTML page a proxy in front of GitHub answers with.
    static func badGateway() -> SimResponse {
        var response = SimResponse(
            status: .badGateway,
            body: ByteBuffer(
                string: """
                    <html>\r
                    <head><title>502 Bad Gateway</title></head>\r
                    <body>\r
                    <center><h1>502 Bad Gateway</h1></center>\r
                    <p>We couldn't respond to your request in time. Sorry about that. Please try resubmitting your request and contact us if the problem persists.</p>\r
                    </body>\r
                    </html>\r

                    """))
        response.headers.add(name: "Content-Type", value: "text/html; charset=utf-8")
        return response
    }
}

/// A response body produced piece by piece: the server asks for the next piece only once the
/// previous one was written, so a slow reader holds the producer back.
protocol StreamedBody: AnyObject, Sendable {
    /// The next piece, or nil at the end.
    func nextChunk() -> ByteBuffer?
    /// How long the server waits, once a piece is written, before it asks for the next (a slow server).
    var pauseBetweenChunks: Duration { get }
}

extension StreamedBody {
    var pauseBetweenChunks: Duration { .zero }
}
