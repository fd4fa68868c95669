// GitHub's git database endpoints for refs and tags (and the /repositories/{id}/ forms):
//   GET …/git/refs/heads, …/git/refs/tags    every branch or tag ref, sorted by name (not paged)
//   GET …/git/refs/tags/NAME                 that one ref, or 404 "Not Found"
//   GET …/git/matching-refs/tags/PREFIX      the refs starting with refs/tags/PREFIX ([] for none)
//   GET …/git/tags/SHA                       an annotated tag object, or 404
// Each with a weak ETag, so an unchanged answer costs a free 304.

import NIOCore
import NIOHTTP1

enum GitDataEndpoint {
    static func respond(_ context: EndpointContext, tail: [Substring], hostile: Set<HostileTag> = []) -> SimResponse {
        let rest = QueryString.decode(tail.dropFirst().joined(separator: "/"), plusAsSpace: false)
        switch tail.first {
        case "refs":
            let refs = refs(context, from: "refs/" + rest, hostile: hostile)
            if let exact = refs.first(where: { $0.ref == "refs/" + rest }) {
                return respondRefs(context, [exact], single: true)
            }
            // GitHub answers a namespace (`refs/tags`) with its refs, a name it does not know with 404.
            let namespace = refs.filter { $0.ref.hasPrefix("refs/\(rest)/") }
            return namespace.isEmpty ? notFound() : respondRefs(context, namespace, single: false)
        case "matching-refs":
            return respondRefs(context, refs(context, from: "refs/" + rest, hostile: hostile), single: false)
        case "tags" where tail.count == 2:
            guard let object = context.repository.tagObject(sha: tail[1], hostile: hostile) else { return notFound() }
            var body = ByteBuffer()
            write(object, context: context, into: &body)
            return PagedListing.respond(context, body: body, identity: "git-tag")
        default:
            return .notFound()
        }
    }

    /// A ref as `/git/refs` shows it: what it names and that object's type.
    struct RefEntry {
        var ref: String
        var sha: String
        var type: String
    }

    /// The branch and tag refs whose names start with `prefix`, sorted by name.
    private static func refs(_ context: EndpointContext, from prefix: String, hostile: Set<HostileTag>) -> [RefEntry] {
        guard let graph = context.repository.graph else { return [] }
        let heads = context.state.branchHeads.map { RefEntry(ref: "refs/heads/\($0.name)", sha: graph.sha(of: $0.node), type: "commit") }
        let tags = ServedTags(context.state, graph: graph, hostile: hostile).lazy.filter { $0.refName.hasPrefix(prefix) }
        return heads.filter { $0.ref.hasPrefix(prefix) } + tags.map { RefEntry(ref: $0.refName, sha: $0.refTarget, type: $0.refTargetType) }
    }

    private static func respondRefs(_ context: EndpointContext, _ refs: [RefEntry], single: Bool) -> SimResponse {
        var body = ByteBuffer()
        if !single { body.writeStaticString("[") }
        for (index, entry) in refs.enumerated() {
            if index > 0 { body.writeStaticString(",") }
            let api = context.renderer.apiRepo
            body.writeStaticString("{\"ref\":")
            body.writeJSONString(entry.ref)
            body.writeStaticString(",\"node_id\":")
            body.writeJSONString(nodeID("REF", context.repository.id, entry.ref))
            body.writeStaticString(",\"url\":")
            body.writeJSONString("\(api)/git/\(entry.ref)")
            body.writeString(",\"object\":{\"sha\":\"\(entry.sha)\",\"type\":\"\(entry.type)\",\"url\":")
            body.writeJSONString("\(api)/git/\(entry.type)s/\(entry.sha)")
            body.writeStaticString("}}")
        }
        if !single { body.writeStaticString("]") }
        return PagedListing.respond(context, body: body, identity: "git-refs")
    }

    /// GitHub's git tag object: its id, tagger, what it names, the tag name and the message as stored.
    static func write(_ object: TagObject, context: EndpointContext, into body: inout ByteBuffer) {
        let api = context.renderer.apiRepo
        body.writeStaticString("{\"node_id\":")
        body.writeJSONString(nodeID("TAG", context.repository.id, object.sha))
        body.writeString(",\"sha\":\"\(object.sha)\",\"url\":")
        body.writeJSONString("\(api)/git/tags/\(object.sha)")
        body.writeStaticString(",\"tagger\":")
        if let tagger = object.tagger {
            body.writeStaticString("{\"name\":")
            body.writeJSONString(tagger.name)
            body.writeStaticString(",\"email\":")
            body.writeJSONString(tagger.email)
            body.writeString(",\"date\":\"\(Timestamp.iso8601UTC(tagger.time))\"}")
        } else {
            body.writeStaticString("null")
        }
        body.writeString(",\"object\":{\"sha\":\"\(object.objectSHA)\",\"type\":")
        body.writeJSONString(object.objectType)
        body.writeStaticString(",\"url\":")
        body.writeJSONString("\(api)/git/\(object.objectType)s/\(object.objectSHA)")
        body.writeStaticString("},\"tag\":")
        body.writeJSONString(object.tagName)
        body.writeStaticString(",\"message\":")
        body.writeJSONString(object.message)
        body.writeStaticString(
            ",\"verification\":{\"verified\":false,\"reason\":\"unsigned\",\"signature\":null,\"payload\":null,\"verified_at\":null}}")
    }

    /// A stable opaque id in GitHub's `node_id` style, for what `key` names in repository `id`.
    static func nodeID(_ kind: String, _ id: Int, _ key: String) -> String {
        "\(kind)_kw\(Hex.string(Hashing.string("\(id)|\(key)"), width: 16))"
    }

    private static func notFound() -> SimResponse {
        .error(.notFound, "Not Found", documentationURL: "https://docs.github.com/rest/git/refs#get-a-reference")
    }
}
