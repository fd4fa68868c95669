// GET /repos/{o}/{r}/pulls (and the /repositories/{id}/ form): pull requests filtered by `state`
// (open by default; closed, all), ordered by `sort` (created by default, or updated) in
// `direction` (desc by default for created, asc for updated, as GitHub does), paged with `Link`
// and a weak ETag, so an unchanged listing answers a free 304.
// GET /repos/{o}/{r}/pulls/{number}: one pull request, or 404.

import Foundation
import NIOCore
import NIOHTTP1

enum PullsEndpoint {
    static func respond(_ context: EndpointContext, hostile: Set<HostilePull> = []) -> SimResponse {
        let request = context.request
        guard let filter = PullRequestBook.StateFilter(rawValue: request.queryValue("state") ?? "open") else {
            return invalid("state")
        }
        let sort = request.queryValue("sort") ?? "created"
        guard ["created", "updated", "popularity", "long-running"].contains(sort) else { return invalid("sort") }
        let direction = request.queryValue("direction") ?? (sort == "created" ? "desc" : "asc")
        guard direction == "asc" || direction == "desc" else { return invalid("direction") }
        let book = context.repository.pulls
        let entries = book.listing(context.repository, filter: filter, byCreation: sort != "updated", ascending: direction == "asc")
        var response = PagedListing.respond(context, path: "/pulls", count: entries.count) { index, body in
            guard var pull = book.pullRequest(entries[index], in: context.repository) else { return }
            if index == 0, hostile.contains(.foreignCommit) { (pull.headSHA, pull.mergeCommitSHA) = (foreignCommit, foreignCommit) }
            write(pull, renderer: context.renderer, owner: context.state.owner, into: &body)
        }
        if hostile.contains(.loopingPages), PageWindow(request, total: entries.count).page == 3,
            let link = response.headers.first(name: "Link")
        {
            response.headers.replaceOrAdd(
                name: "Link", value: link.replacingOccurrences(of: "page=4>; rel=\"next\"", with: "page=2>; rel=\"next\""))
        }
        return response
    }

    /// A real commit of another repository (the root of a generated history of seed 4242).
    static let foreignCommit = SyntheticRepository(spec: SyntheticSpec(commits: 1, seed: 4242)).sha(at: 0)

    static func respondOne(_ context: EndpointContext, number: Substring) -> SimResponse {
        guard let number = Int(number), let pull = context.repository.pulls.pullRequest(number, in: context.repository) else {
            return .error(.notFound, "Not Found", documentationURL: "https://docs.github.com/rest/pulls/pulls#get-a-pull-request")
        }
        var body = ByteBuffer()
        write(pull, renderer: context.renderer, owner: context.state.owner, into: &body)
        return PagedListing.respond(context, body: body, identity: "pull")
    }

    private static func invalid(_ field: String) -> SimResponse {
        .error(.unprocessableEntity, "Validation Failed: \(field) is not a valid value")
    }

    /// A pull request of `owner`'s repository as GitHub renders one (the fields a mirror reads, in GitHub's order).
    static func write(_ pull: PullRequest, renderer: ElementRenderer, owner: String, into body: inout ByteBuffer) {
        func date(_ time: Int64?) -> String { time.map { "\"\(Timestamp.iso8601UTC($0))\"" } ?? "null" }
        let id = 500_000_000 + renderer.repoID % 100_000 * 10_000 + pull.number
        body.writeString("{\"url\":\"\(renderer.apiRepo)/pulls/\(pull.number)\",\"id\":\(id),\"node_id\":")
        body.writeJSONString(GitDataEndpoint.nodeID("PR", renderer.repoID, String(pull.number)))
        body.writeString(",\"html_url\":\"\(renderer.htmlRepo)/pull/\(pull.number)\",\"number\":\(pull.number)")
        body.writeString(",\"state\":\"\(pull.isOpen ? "open" : "closed")\",\"locked\":false,\"title\":")
        body.writeJSONString(pull.title)
        body.writeStaticString(",\"user\":")
        renderer.writeUser(pull.user, into: &body)
        body.writeStaticString(",\"body\":")
        body.writeJSONString(pull.body)
        body.writeString(",\"created_at\":\(date(pull.createdAt)),\"updated_at\":\(date(pull.updatedAt))")
        body.writeString(",\"closed_at\":\(date(pull.closedAt)),\"merged_at\":\(date(pull.mergedAt)),\"merge_commit_sha\":")
        if let merge = pull.mergeCommitSHA { body.writeJSONString(merge) } else { body.writeStaticString("null") }
        body.writeStaticString(",\"draft\":false")
        for (side, labelOwner, ref, sha) in [
            ("head", pull.headOwner, pull.headRef, pull.headSHA), ("base", owner, pull.baseRef, pull.baseSHA),
        ] {
            body.writeString(",\"\(side)\":{\"label\":")
            body.writeJSONString("\(labelOwner):\(ref)")
            body.writeStaticString(",\"ref\":")
            body.writeJSONString(ref)
            body.writeStaticString(",\"sha\":")
            body.writeJSONString(sha)
            body.writeStaticString("}")
        }
        body.writeString(",\"author_association\":\"CONTRIBUTOR\",\"merged\":\(pull.mergedAt != nil)}")
    }
}
