// GET /repos/{o}/{r}/releases (and the /repositories/{id}/ form): a published release for every
// annotated tag, newest first, paged with `Link` and a weak ETag. Its name is the tag message's
// first line, its body the rest; a tag name with a `-` (`5.0.0-beta.1`) is a prerelease.

import NIOCore
import NIOHTTP1

enum ReleasesEndpoint {
    static func respond(_ context: EndpointContext) -> SimResponse {
        let releases = context.state.sortedTags.compactMap { tag in tag.annotation.map { (tag, $0) } }
            .sorted { ($0.1.tagger?.time ?? 0, $0.0.name) > ($1.1.tagger?.time ?? 0, $1.0.name) }
        let graph = context.repository.graph
        return PagedListing.respond(context, path: "/releases", count: releases.count) { index, body in
            let (tag, object) = releases[index]
            let id = 1_000_000 + Int(Hashing.string("\(context.repository.id)|\(tag.name)") % 100_000_000)
            let commit = tag.peeled.flatMap { graph?.node(forSHA: $0) }
            let published = object.tagger?.time ?? commit.flatMap { graph?.committerTime(of: $0) } ?? 0
            let created = commit.flatMap { graph?.committerTime(of: $0) } ?? published
            let api = context.renderer.apiRepo
            body.writeString("{\"url\":\"\(api)/releases/\(id)\",\"html_url\":")
            body.writeJSONString("\(context.renderer.htmlRepo)/releases/tag/\(tag.name)")
            body.writeString(",\"id\":\(id),\"author\":")
            context.renderer.writeUser(commit.flatMap { graph?.record(of: $0).committer.user }, into: &body)
            body.writeStaticString(",\"node_id\":")
            body.writeJSONString(GitDataEndpoint.nodeID("RE", context.repository.id, tag.name))
            body.writeStaticString(",\"tag_name\":")
            body.writeJSONString(tag.name)
            body.writeStaticString(",\"target_commitish\":")
            body.writeJSONString(context.state.defaultBranch)
            body.writeStaticString(",\"name\":")
            body.writeJSONString(object.subject.isEmpty ? tag.name : object.subject)
            body.writeString(",\"draft\":false,\"prerelease\":\(tag.name.contains("-"))")
            body.writeString(",\"created_at\":\"\(Timestamp.iso8601UTC(created))\",\"published_at\":\"\(Timestamp.iso8601UTC(published))\"")
            body.writeStaticString(",\"body\":")
            body.writeJSONString(String(object.message.drop { $0 != "\n" }.drop { $0 == "\n" }))
            body.writeStaticString("}")
        }
    }
}
