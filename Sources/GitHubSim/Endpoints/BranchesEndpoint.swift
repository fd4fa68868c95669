// GET /repos/{o}/{r}/branches and /repositories/{id}/branches: every branch with its head, sorted
// by name as GitHub lists them, paginated (per_page 30 by default, at most 100) with `Link` on
// /repositories/{id}/branches, and a weak ETag: a conditional request for an unchanged page
// answers 304, free when authenticated. An empty repository has no branches (`[]`).
// `protected=true` lists none (nothing is protected here), `protected=false` lists all.

import NIOCore

enum BranchesEndpoint {

    static func respond(_ context: EndpointContext) -> SimResponse {
        let request = context.request
        var branches = context.state.branchHeads
        if request.queryValue("protected") == "true" { branches = [] }
        let window = PageWindow(request, total: branches.count)

        var body = ByteBuffer()
        body.writeStaticString("[")
        if let graph = context.repository.graph {
            for (index, branch) in branches[window.range].enumerated() {
                if index > 0 { body.writeStaticString(",") }
                let sha = graph.sha(of: branch.node)
                body.writeStaticString("{\"name\":")
                body.writeJSONString(branch.name)
                body.writeString(",\"commit\":{\"sha\":\"\(sha)\",\"url\":")
                body.writeJSONString("\(context.renderer.apiRepo)/commits/\(sha)")
                body.writeStaticString("},\"protected\":false}")
            }
        }
        body.writeStaticString("]")

        let etag = ConditionalRequest.weakETag("branches|\(context.repository.id)|\(request.query ?? "")|" + String(buffer: body))
        var headers = context.cacheHeaders(etag: etag, lastModified: nil)
        if let notModified = context.notModified(etag: etag, headers: headers) { return notModified }
        if let link = LinkBuilder.header(
            base: "\(context.baseURL)/repositories/\(context.repository.id)/branches", rawQuery: request.query,
            page: window.page, total: branches.count, perPage: window.perPage)
        {
            headers.add(name: "Link", value: link)
        }
        var response = SimResponse.json(.ok, body)
        response.headers.add(contentsOf: headers)
        return response
    }
}
