// Which endpoint answers a request under /repos/{o}/{r}/… (or /repositories/{id}/…), by what
// follows the repository in the path.

enum RepositoryRoutes {
    /// `faults` is read only by the endpoints it shapes, so a commit listing takes no extra lock.
    static func respond(_ context: EndpointContext, tail: [Substring], faults: @autoclosure () -> FaultPlan) -> SimResponse {
        // Branch and tag names may hold slashes: `branches/release/1.0`, `compare/main...release/1.0`.
        func rest() -> String { QueryString.decode(tail.dropFirst().joined(separator: "/"), plusAsSpace: false) }
        switch tail.first {
        case nil:
            return RepositoryEndpoint.respond(context)
        case "commits" where tail.count == 1:
            return ListCommitsEndpoint.respond(context)
        case "commits":
            return GetCommitEndpoint.respond(context, ref: rest())
        case "branches" where tail.count == 1:
            return BranchesEndpoint.respond(context, omitting: faults().branchListingOmits)
        case "branches":
            return BranchesEndpoint.respondOne(context, name: rest())
        case "compare" where tail.count >= 2:
            return CompareEndpoint.respond(context, spec: rest())
        case "tags" where tail.count == 1:
            return TagsEndpoint.respond(context, hostile: faults().hostileTags)
        case "pulls" where tail.count == 1:
            return PullsEndpoint.respond(context, hostile: faults().hostilePulls)
        case "pulls" where tail.count == 2:
            return PullsEndpoint.respondOne(context, number: tail[1])
        case "releases" where tail.count == 1:
            return ReleasesEndpoint.respond(context)
        case "git" where tail.count >= 3:
            return GitDataEndpoint.respond(context, tail: Array(tail.dropFirst()), hostile: faults().hostileTags)
        default:
            return .notFound()
        }
    }
}
