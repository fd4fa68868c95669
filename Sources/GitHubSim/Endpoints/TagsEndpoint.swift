// GET /repos/{o}/{r}/tags (and the /repositories/{id}/ form): every tag with the commit it ends
// at, paged (per_page 30 by default, at most 100) with `Link` and a weak ETag. Newest version
// first, as GitHub orders them: names compared with their numbers as numbers, descending.

import Foundation
import NIOCore
import NIOHTTP1

enum TagsEndpoint {
    static func respond(_ context: EndpointContext, hostile: Set<HostileTag> = []) -> SimResponse {
        let served = ServedTags(context.state, graph: context.repository.graph, hostile: hostile)
        let tags = listingOrder(served.tags)
        let api = context.renderer.apiRepo
        // Hostile bulk tags follow the others in their own order, made as the page needs them.
        return PagedListing.respond(context, path: "/tags", count: served.count) { index, body in
            let tag = index < tags.count ? tags[index] : served[index]
            let sha = tag.peeled ?? tag.refTarget
            let escaped = tag.name.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? tag.name
            body.writeStaticString("{\"name\":")
            body.writeJSONString(tag.name)
            body.writeStaticString(",\"zipball_url\":")
            body.writeJSONString("\(api)/zipball/refs/tags/\(escaped)")
            body.writeStaticString(",\"tarball_url\":")
            body.writeJSONString("\(api)/tarball/refs/tags/\(escaped)")
            body.writeString(",\"commit\":{\"sha\":\"\(sha)\",\"url\":")
            body.writeJSONString("\(api)/commits/\(sha)")
            body.writeStaticString("},\"node_id\":")
            body.writeJSONString(GitDataEndpoint.nodeID("REF", context.repository.id, tag.refName))
            body.writeStaticString("}")
        }
    }

    /// Descending by name, numbers compared as numbers (`v1.10.0` before `v1.9.0`), ties by bytes.
    static func listingOrder(_ tags: [GitTag]) -> [GitTag] {
        tags.sorted { a, b in
            switch a.name.compare(b.name, options: .numeric) {
            case .orderedDescending: true
            case .orderedAscending: false
            case .orderedSame: Array(a.name.utf8).lexicographicallyPrecedes(Array(b.name.utf8))
            }
        }
    }
}
