// GET /repos/{o}/{r}/commits/{ref}: the commit, or just its sha with the `sha` media type
// (the cheap "has the branch moved?" check, LIST-COMMITS.md §4).

import NIOCore
import NIOHTTP1

enum GetCommitEndpoint {
    static func respond(_ context: EndpointContext, ref: String) -> SimResponse {
        guard let graph = context.repository.graph, let head = context.state.head else {
            return .emptyRepository(section: "get-a-commit")
        }
        guard let node = context.repository.resolve(ref: ref, head: head, branches: context.state.branches) else {
            return .error(
                .unprocessableEntity, "No commit found for SHA: \(ref)",
                documentationURL: "https://docs.github.com/rest/commits/commits#get-a-commit")
        }
        let sha = graph.sha(of: node)
        let lastModified = graph.committerTime(of: node)
        let accept = context.request.header("Accept")?.lowercased() ?? ""
        if accept.contains("vnd.github.sha") || accept.contains("vnd.github.v3.sha") {
            let headers = context.cacheHeaders(etag: "\"\(sha)\"", lastModified: lastModified)
            if let notModified = context.notModified(etag: "\"\(sha)\"", headers: headers) { return notModified }
            var response = SimResponse(status: .ok, headers: headers, body: ByteBuffer(string: sha))
            response.headers.add(name: "Content-Type", value: "text/plain; charset=utf-8")
            return response
        }
        let etag = ConditionalRequest.weakETag("commit|\(context.repository.id)|\(context.renderer.cacheKey)|\(sha)")
        let headers = context.cacheHeaders(etag: etag, lastModified: lastModified)
        if let notModified = context.notModified(etag: etag, headers: headers) { return notModified }
        var body = ByteBuffer()
        context.renderer.writeElement(graph.record(of: node), into: &body, detailed: true)
        var response = SimResponse.json(.ok, body)
        response.headers.add(contentsOf: headers)
        return response
    }
}
