// GET /repos/{o}/{r} and /repositories/{id}: the fields a mirror reads (id, names, default branch).

import NIOCore
import NIOHTTP1

enum RepositoryEndpoint {
    static func respond(_ context: EndpointContext) -> SimResponse {
        var body = ByteBuffer()
        RepositoryJSON.write(
            context.repository, state: context.state, baseURL: context.baseURL, cloneBaseURL: context.cloneBaseURL, into: &body)
        let etag = ConditionalRequest.weakETag("repo|", body: body)
        let headers = context.cacheHeaders(
            etag: etag, lastModified: RepositoryJSON.pushedAt(context.repository, state: context.state))
        if let notModified = context.notModified(etag: etag, headers: headers) { return notModified }
        var response = SimResponse.json(.ok, body)
        response.headers.add(contentsOf: headers)
        return response
    }
}
