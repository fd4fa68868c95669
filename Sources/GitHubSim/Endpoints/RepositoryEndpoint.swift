// GET /repos/{o}/{r} and /repositories/{id}: the fields a mirror reads (id, names, default branch).

import NIOCore

enum RepositoryEndpoint {
    static func respond(_ context: EndpointContext) -> SimResponse {
        let state = context.state
        let renderer = context.renderer
        let repository = context.repository
        var pushedAt = SyntheticRepository.firstCommitTime
        if let graph = repository.graph, let head = state.head { pushedAt = graph.committerTime(of: head) }
        let owner = SimUser(
            login: SimUser.sanitizedLogin(state.owner),
            id: Int(Hashing.string(state.owner.lowercased(), lane: 13) % 90_000_000) + 1000)

        var body = ByteBuffer()
        body.writeString("{\"id\":\(repository.id),\"node_id\":")
        body.writeJSONString(Base64.encode(Array("010:Repository\(repository.id)".utf8)))
        body.writeStaticString(",\"name\":")
        body.writeJSONString(state.name)
        body.writeStaticString(",\"full_name\":")
        body.writeJSONString(state.fullName)
        body.writeStaticString(",\"private\":false,\"owner\":")
        renderer.writeUser(owner, into: &body)
        body.writeStaticString(",\"html_url\":")
        body.writeJSONString(renderer.htmlRepo)
        body.writeStaticString(",\"description\":null,\"fork\":false,\"url\":")
        body.writeJSONString(renderer.apiRepo)
        body.writeStaticString(",\"commits_url\":")
        body.writeJSONString(renderer.apiRepo + "/commits{/sha}")
        body.writeString(
            ",\"created_at\":\"2014-12-01T00:00:00Z\",\"updated_at\":\"\(Timestamp.iso8601UTC(pushedAt))\",\"pushed_at\":\"\(Timestamp.iso8601UTC(pushedAt))\""
        )
        body.writeStaticString(",\"size\":0,\"default_branch\":")
        body.writeJSONString(repository.defaultBranch)
        // `license` is null for a repository without a recognised licence; GitHub always sends the key
        // (github-to-sqlite reads it).
        body.writeStaticString(",\"license\":null,\"visibility\":\"public\",\"archived\":false,\"disabled\":false}")

        let etag = ConditionalRequest.weakETag("repo|" + String(buffer: body))
        let headers = context.cacheHeaders(etag: etag, lastModified: pushedAt)
        if let notModified = context.notModified(etag: etag, headers: headers) { return notModified }
        var response = SimResponse.json(.ok, body)
        response.headers.add(contentsOf: headers)
        return response
    }
}
