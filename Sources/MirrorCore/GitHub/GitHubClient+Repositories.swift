import Curl
import Foundation
import MirrorModel

/// Owner listings: `GET /orgs/{org}/repos` (or `/users/{user}/repos` for a
/// user account; with a GitHub App, `/installation/repositories`: what the
/// installation may see), one page per call. Pagination, its origin rules and what a
/// listing must be consistent with live in `RepositoryDiscovery`, as the
/// commit listing's live in `SyncEngine`.
extension GitHubClient {
    public typealias OwnerKind = MirrorModel.OwnerKind
    public typealias ListedRepository = MirrorModel.ListedRepository

    /// An answer for one page of an owner listing.
    public enum OwnerRepositoriesPage: Sendable, Equatable {
        /// 304: the page is the one the ETag sent was taken from.
        case notModified
        case listed(repositories: [ListedRepository], etag: String?, next: String?, last: String?)
    }

    /// The first page of `owner`'s listing, every kind of repository the token
    /// may see (`type=all`), 100 a page.
    public func ownerRepositoriesURL(_ owner: String, kind: OwnerKind) -> String {
        let path = kind == .organization ? "orgs" : "users"
        return "\(configuration.apiURL)/\(path)/\(owner)/repos?type=all&per_page=100"
    }

    /// With a GitHub App, the first page of what its installation may see: the
    /// installation's token names the account, so the owner is not in the path.
    public var installationRepositoriesURL: String {
        "\(configuration.apiURL)/installation/repositories?per_page=100"
    }

    /// One page of an owner listing, sent with `If-None-Match: <etag>` when one is
    /// known (answered 304, free when authenticated, when the page is unchanged).
    /// Throws `GitHubError.notFound` when GitHub knows no such owner (or no such
    /// organization, for `/orgs/`).
    /// `installation`: a page of `/installation/repositories`, whose array is wrapped.
    public func ownerRepositoriesPage(
        url: String, owner: String, etag: String?, installation: Bool = false
    ) async throws -> OwnerRepositoriesPage {
        struct Element: Decodable {
            struct Owner: Decodable { var login: String }
            var id: Int
            var full_name: String
            var owner: Owner
            var default_branch: String?
            var html_url: String?
            var fork: Bool?
            var archived: Bool?
        }
        /// `/installation/repositories` wraps the array.
        struct InstallationPage: Decodable {
            var repositories: [Element]
        }
        var headers: HTTPHeaders = []
        if let etag { headers.add(name: "If-None-Match", value: etag) }
        let label = RepositoryName(owner: owner, name: "*")
        return try await send(url: url, headers: headers, kind: .ownerListing, repository: label) { response -> OwnerRepositoriesPage in
            if response.status == 304 { return .notModified }
            let links = try LinkHeader.of(response.headers["link"], redact: redact)
            let elements =
                installation
                ? try PayloadDecoder().decode(InstallationPage.self, from: response.body).repositories
                : try PayloadDecoder().decode([Element].self, from: response.body)
            let repositories = elements.map {
                ListedRepository(
                    id: $0.id, fullName: $0.full_name, ownerLogin: $0.owner.login, defaultBranch: $0.default_branch,
                    htmlURL: $0.html_url, fork: $0.fork ?? false, archived: $0.archived ?? false)
            }
            return .listed(repositories: repositories, etag: response.headers["etag"], next: links?.next, last: links?.last)
        }.value
    }
}
