// The GitHub App endpoints of App mode, as GitHub documents them:
//   GET  /app/installations                          the App's installations (JWT), paginated
//   POST /app/installations/{id}/access_tokens       a new installation token (JWT), 201
//   GET  /orgs/{org}/installation, /users/{u}/installation   the App's installation there (JWT)
//   GET  /installation/repositories                  what the installation sees (its token),
//                                                    paginated, with a weak ETag
//   DELETE /installation/token                       revokes the token sent (204)
// An installation sees every repository of its account (repository selection "all").

import Foundation
import NIOCore
import NIOHTTP1

enum AppEndpoints {

    static func respond(
        _ request: SimRequest, route: AppRoute, caller: Caller, authority: AppAuthority, repositories: [HostedRepository],
        baseURL: String, cloneBaseURL: String
    ) -> SimResponse {
        let expectedMethod: String = {
            switch route {
            case .accessTokens: return "POST"
            case .revokeToken: return "DELETE"
            default: return "GET"
            }
        }()
        guard request.method.rawValue == expectedMethod else { return .notFound() }
        if case .revokeToken = route {
            guard case .installation = caller, case .token(let token) = Credentials(authorization: request.header("Authorization")) else {
                return .error(.forbidden, "You must authenticate with an installation access token in order to revoke it.")
            }
            authority.revoke(token)
            return SimResponse(status: .noContent)
        }
        if case .installationRepositories = route {
            guard case .installation(let installation) = caller else {
                return .error(
                    .forbidden, "You must authenticate with an installation access token in order to list repositories for an installation."
                )
            }
            return installationRepositories(
                request, installation: installation, repositories: repositories, baseURL: baseURL, cloneBaseURL: cloneBaseURL)
        }
        guard caller == .app else { return .error(.unauthorized, "A JSON web token could not be decoded") }
        switch route {
        case .installations:
            let all = authority.app.installations
            let window = PageWindow(request, total: all.count)
            var body = ByteBuffer()
            body.writeStaticString("[")
            for (index, installation) in all[window.range].enumerated() {
                if index > 0 { body.writeStaticString(",") }
                write(installation, app: authority.app, baseURL: baseURL, into: &body)
            }
            body.writeStaticString("]")
            var response = SimResponse.json(.ok, body)
            window.addLink(base: "\(baseURL)/app/installations", request: request, total: all.count, to: &response.headers)
            return response
        case .accessTokens(let id):
            guard let installation = authority.installation(id: id) else { return .notFound() }
            let (token, expiresAt) = authority.issueToken(for: installation)
            var body = ByteBuffer()
            body.writeStaticString("{\"token\":")
            body.writeJSONString(token)
            body.writeString(
                ",\"expires_at\":\"\(Timestamp.iso8601UTC(expiresAt))\",\"permissions\":{\"contents\":\"read\",\"metadata\":\"read\"},\"repository_selection\":\"all\"}"
            )
            return .json(.created, body)
        case .accountInstallation(let login, _):
            guard let installation = authority.installation(on: login) else { return .notFound() }
            var body = ByteBuffer()
            write(installation, app: authority.app, baseURL: baseURL, into: &body)
            return .json(.ok, body)
        case .installationRepositories, .revokeToken:
            return .notFound()
        }
    }

    /// `{"total_count":N,"repository_selection":"all","repositories":[…]}`, the account's
    /// repositories by id, newest first, as the organization listing orders them.
    private static func installationRepositories(
        _ request: SimRequest, installation: SimInstallation, repositories: [HostedRepository], baseURL: String,
        cloneBaseURL: String
    ) -> SimResponse {
        let account = installation.account.lowercased()
        let listed = repositories.map { ($0, $0.snapshot) }.filter { $0.1.owner.lowercased() == account }.sorted { $0.0.id > $1.0.id }
        let window = PageWindow(request, total: listed.count)
        var body = ByteBuffer()
        body.writeString("{\"total_count\":\(listed.count),\"repository_selection\":\"all\",\"repositories\":[")
        RepositoryJSON.writeElements(listed[window.range], baseURL: baseURL, cloneBaseURL: cloneBaseURL, into: &body)
        body.writeStaticString("]}")
        let etag = ConditionalRequest.weakETag("installation-repos|\(installation.id)|\(request.query ?? "")|", body: body)
        var headers = EndpointContext.cacheHeaders(etag: etag, lastModified: nil, authenticated: true)
        if ConditionalRequest.matches(ifNoneMatch: request.header("If-None-Match"), etag: etag) {
            return SimResponse(status: .notModified, headers: headers)
        }
        window.addLink(base: "\(baseURL)/installation/repositories", request: request, total: listed.count, to: &headers)
        var response = SimResponse.json(.ok, body)
        response.headers.add(contentsOf: headers)
        return response
    }

    private static func write(_ installation: SimInstallation, app: SimApp, baseURL: String, into body: inout ByteBuffer) {
        let account = RepositoryJSON.ownerAccount(installation.account)
        body.writeString("{\"id\":\(installation.id),\"account\":{\"login\":")
        body.writeJSONString(account.login)
        body.writeString(",\"id\":\(account.id),\"type\":\"Organization\"},\"app_id\":\(app.appID),\"target_type\":\"Organization\"")
        body.writeStaticString(",\"repository_selection\":\"all\",\"access_tokens_url\":")
        body.writeJSONString("\(baseURL)/app/installations/\(installation.id)/access_tokens")
        body.writeStaticString(",\"permissions\":{\"contents\":\"read\",\"metadata\":\"read\"}}")
    }
}
