// GET /repos/{o}/{r}/branches and /repositories/{id}/branches: every branch with its head, sorted
// by name as GitHub lists them, paginated (per_page 30 by default, at most 100) with `Link` on
// /repositories/{id}/branches, and a weak ETag: a conditional request for an unchanged page
// answers 304, free when authenticated. An empty repository has no branches (`[]`).
// `protected=true` lists none (nothing is protected here), `protected=false` lists all.
// GET /repos/{o}/{r}/branches/{branch} (and the /repositories/{id}/ form): one branch, or 404
// "Branch not found", as GitHub answers it.

import NIOCore
import NIOHTTP1

enum BranchesEndpoint {

    /// `omitting`: branches the listing leaves out (`FaultPlan.branchListingOmits`), its pages
    /// computed without them; the single-branch endpoint still serves them.
    static func respond(_ context: EndpointContext, omitting: Set<String> = []) -> SimResponse {
        let request = context.request
        var branches = context.state.branchHeads.filter { !omitting.contains($0.name) }
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

        let etag = ConditionalRequest.weakETag("branches|\(context.repository.id)|\(request.query ?? "")|", body: body)
        var headers = context.cacheHeaders(etag: etag, lastModified: nil)
        if let notModified = context.notModified(etag: etag, headers: headers) { return notModified }
        window.addLink(
            base: "\(context.baseURL)/repositories/\(context.repository.id)/branches", request: request, total: branches.count, to: &headers
        )
        var response = SimResponse.json(.ok, body)
        response.headers.add(contentsOf: headers)
        return response
    }

    /// `GET …/branches/{name}`: the branch with its head, in the listing's shape (GitHub adds
    /// the head commit's details and `_links`, which no client here reads), with an ETag.
    static func respondOne(_ context: EndpointContext, name: String) -> SimResponse {
        guard let graph = context.repository.graph, let branch = context.state.branchHeads.first(where: { $0.name == name }) else {
            return .error(
                .notFound, "Branch not found", documentationURL: "https://docs.github.com/rest/branches/branches#get-a-branch")
        }
        let sha = graph.sha(of: branch.node)
        var body = ByteBuffer()
        body.writeStaticString("{\"name\":")
        body.writeJSONString(branch.name)
        body.writeString(",\"commit\":{\"sha\":\"\(sha)\",\"url\":")
        body.writeJSONString("\(context.renderer.apiRepo)/commits/\(sha)")
        body.writeStaticString("},\"protected\":false}")
        let etag = ConditionalRequest.weakETag("branch|\(context.repository.id)|", body: body)
        let headers = context.cacheHeaders(etag: etag, lastModified: nil)
        if let notModified = context.notModified(etag: etag, headers: headers) { return notModified }
        var response = SimResponse.json(.ok, body)
        response.headers.add(contentsOf: headers)
        return response
    }
}
