// A JSON array listing answered as GitHub answers its list endpoints: the page `page` and
// `per_page` ask for (PageWindow), a weak ETag over what shapes the page so a conditional request
// for an unchanged page answers 304 (free when authenticated), and `Link` on the
// /repositories/{id}/… form of the path.

import NIOCore
import NIOHTTP1

enum PagedListing {
    /// - Parameters:
    ///   - path: what follows `/repositories/{id}` in the `Link` URLs (`/tags`).
    ///   - count: how many elements the whole listing has.
    ///   - element: writes element `index` of the listing.
    static func respond(
        _ context: EndpointContext, path: String, count: Int, element: (Int, inout ByteBuffer) -> Void
    ) -> SimResponse {
        let request = context.request
        let window = PageWindow(request, total: count)
        var body = ByteBuffer()
        body.writeStaticString("[")
        for index in window.range {
            if index > window.lower { body.writeStaticString(",") }
            element(index, &body)
        }
        body.writeStaticString("]")
        return respond(context, body: body, identity: "\(path)|\(request.query ?? "")") { headers in
            window.addLink(
                base: "\(context.baseURL)/repositories/\(context.repository.id)\(path)", request: request, total: count, to: &headers)
        }
    }

    /// `body` with cache headers and an ETag over `identity` and the body: 304 when the request names it.
    static func respond(
        _ context: EndpointContext, body: ByteBuffer, identity: String, moreHeaders: (inout HTTPHeaders) -> Void = { _ in }
    ) -> SimResponse {
        let etag = ConditionalRequest.weakETag("\(identity)|\(context.repository.id)|", body: body)
        var headers = context.cacheHeaders(etag: etag, lastModified: nil)
        if let notModified = context.notModified(etag: etag, headers: headers) { return notModified }
        moreHeaders(&headers)
        var response = SimResponse.json(.ok, body)
        response.headers.add(contentsOf: headers)
        return response
    }
}
