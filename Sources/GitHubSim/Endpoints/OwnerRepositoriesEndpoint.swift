// GET /orgs/{org}/repos and /users/{user}/repos (and /organizations/{id}/repos, /user/{id}/repos,
// the forms GitHub's `Link` URLs use): one owner's repositories, paginated, with a weak ETag.
//
// As GitHub documents: an organization listing is sorted by creation, newest first; a user
// listing by full name. `type` filters forks (`forks`) or non-forks (`sources`); the other values
// (`all`, `member`, `owner`) list everything the client may see: private repositories only with a
// token; `public` and `private` list those. `/orgs/{user}/repos` for a user account answers 404.

import NIOCore
import NIOHTTP1

enum OwnerRepositoriesEndpoint {

    static func respond(
        _ request: SimRequest, owner reference: OwnerReference, repositories: [HostedRepository], userAccounts: Set<String>,
        baseURL: String, cloneBaseURL: String, authenticated: Bool
    ) -> SimResponse {
        let owners = Set(repositories.map { $0.snapshot.owner.lowercased() })
        let owner: String
        let organization: Bool
        switch reference {
        case .organization(let login):
            owner = login.lowercased()
            organization = true
        case .user(let login):
            owner = login.lowercased()
            organization = false
        case .organizationID(let id):
            guard let found = owners.first(where: { RepositoryJSON.ownerID($0) == id }) else { return .notFound() }
            owner = found
            organization = true
        case .userID(let id):
            guard let found = owners.first(where: { RepositoryJSON.ownerID($0) == id }) else { return .notFound() }
            owner = found
            organization = false
        }
        // An organization without repositories still exists on GitHub; here an owner exists
        // while it has a repository, and is an organization unless configured as a user.
        guard owners.contains(owner), !(organization && userAccounts.contains(owner)) else { return .notFound() }

        var listed = repositories.map { ($0, $0.snapshot) }.filter {
            $0.1.owner.lowercased() == owner && (authenticated || !$0.0.isPrivate)
        }
        switch request.queryValue("type") {
        case "forks": listed = listed.filter { $0.0.fork }
        case "sources": listed = listed.filter { !$0.0.fork }
        case "public": listed = listed.filter { !$0.0.isPrivate }
        case "private": listed = listed.filter { $0.0.isPrivate }
        default: break
        }
        if organization {
            listed.sort { $0.0.id > $1.0.id }
        } else {
            listed.sort { $0.1.fullName.lowercased() < $1.1.fullName.lowercased() }
        }
        let window = PageWindow(request, total: listed.count)

        var body = ByteBuffer()
        body.writeStaticString("[")
        RepositoryJSON.writeElements(listed[window.range], baseURL: baseURL, cloneBaseURL: cloneBaseURL, into: &body)
        body.writeStaticString("]")

        let etag = ConditionalRequest.weakETag("owner-repos|\(request.path)|\(request.query ?? "")|", body: body)
        var headers = EndpointContext.cacheHeaders(etag: etag, lastModified: nil, authenticated: authenticated)
        if ConditionalRequest.matches(ifNoneMatch: request.header("If-None-Match"), etag: etag) {
            return SimResponse(status: .notModified, headers: headers)
        }
        let accountPath = organization ? "organizations" : "user"
        window.addLink(
            base: "\(baseURL)/\(accountPath)/\(RepositoryJSON.ownerID(owner))/repos", request: request, total: listed.count, to: &headers)
        var response = SimResponse.json(.ok, body)
        response.headers.add(contentsOf: headers)
        return response
    }
}
