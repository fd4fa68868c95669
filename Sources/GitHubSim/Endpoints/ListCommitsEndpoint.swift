// GET /repos/{o}/{r}/commits and /repositories/{id}/commits (LIST-COMMITS.md §1–4).

import NIOCore
import NIOHTTP1

enum ListCommitsEndpoint {

    static func respond(_ context: EndpointContext) -> SimResponse {
        let request = context.request
        guard let graph = context.repository.graph, let head = context.state.head else {
            return .emptyRepository(section: "list-commits")
        }
        guard let start = context.repository.resolve(ref: request.queryValue("sha"), head: head, branches: context.state.branches) else {
            return .notFound()  // GitHub's answer to an unknown sha/branch is [I] in the spec
        }
        var since: Int64?
        var until: Int64?
        if let text = request.queryValue("since") {
            guard let parsed = Timestamp.parseISO8601(text) else { return invalidTime("since", text) }
            since = parsed
        }
        if let text = request.queryValue("until") {
            guard let parsed = Timestamp.parseISO8601(text) else { return invalidTime("until", text) }
            until = parsed
        }

        let listing = graph.listing(from: start, since: since, until: until)
        let window = PageWindow(request, total: listing.count, maxPage: 1_000_000_000)
        let nodes = window.range.map { listing[$0] }

        let etag = ConditionalRequest.weakETag(
            "list|\(context.repository.id)|\(context.renderer.cacheKey)|\(graph.sha(of: start))|\(request.query ?? "")")
        var headers = context.cacheHeaders(etag: etag, lastModified: nodes.first.map(graph.committerTime(of:)))
        if let notModified = context.notModified(etag: etag, headers: headers) { return notModified }

        window.addLink(
            base: "\(context.baseURL)/repositories/\(context.repository.id)/commits", request: request, total: listing.count, to: &headers)
        headers.add(name: "x-accepted-github-permissions", value: "contents=read")
        var response = SimResponse.json(
            .ok,
            PageRenderer.render(
                nodes: nodes, graph: graph, cache: context.repository.elementCache, renderer: context.renderer))
        response.headers.add(contentsOf: headers)
        return response
    }

    private static func invalidTime(_ name: String, _ value: String) -> SimResponse {
        // GitHub's exact answer to a malformed date is undocumented; 400 is the natural choice.
        .error(.badRequest, "Invalid value for \(name): \(value)")
    }
}
