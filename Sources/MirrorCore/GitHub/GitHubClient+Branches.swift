import Curl
import Foundation
import MirrorModel

/// Branch listings: `GET /repos/{o}/{r}/branches`, one page per call, each with
/// every branch's head (docs/BRANCHES.md). Pagination and what a listing must be
/// consistent with live in `BranchListing.list`, as the owner listing's live in
/// `RepositoryDiscovery`.
extension GitHubClient {
    public typealias ListedBranch = MirrorModel.ListedBranch

    /// An answer for one page of a branch listing.
    public enum BranchesPage: Sendable, Equatable {
        /// 304: the page is the one the ETag sent was taken from.
        case notModified
        case listed(branches: [ListedBranch], etag: String?, next: String?)
    }

    /// The first page of `repository`'s branches, 100 a page.
    public func branchesURL(_ repository: RepositoryName) -> String {
        "\(configuration.apiURL)/repos/\(repository.owner)/\(repository.name)/branches?per_page=100"
    }

    /// One page of a branch listing, sent with `If-None-Match: <etag>` when one is
    /// known (answered 304, free when authenticated, when the page is unchanged).
    /// Throws `GitHubError.notFound` when GitHub knows no such repository.
    public func branchesPage(url: String, repository: RepositoryName, etag: String?) async throws -> BranchesPage {
        struct Element: Decodable {
            struct Head: Decodable { var sha: String }
            var name: String
            var commit: Head
        }
        var headers: HTTPHeaders = []
        if let etag { headers.add(name: "If-None-Match", value: etag) }
        return try await send(url: url, headers: headers, kind: .branchListing, repository: repository) { response -> BranchesPage in
            if response.status == 304 { return .notModified }
            let links = try LinkHeader.of(response.headers["link"], redact: redact)
            let elements = try PayloadDecoder().decode([Element].self, from: response.body)
            let branches = elements.map { ListedBranch(name: $0.name, head: $0.commit.sha) }
            return .listed(branches: branches, etag: response.headers["etag"], next: links?.next)
        }.value
    }

    /// `GET /repos/{o}/{r}/branches/{branch}`: whether GitHub has the branch now, asked
    /// before a branch a listing lacks is marked gone (`GoneBranches`). 404 is "no", and
    /// so is another branch's answer (GitHub redirects a renamed branch's old name to
    /// its new one); anything else is thrown (rate limits, 5xx after retries, …).
    public func branchExists(_ repository: RepositoryName, branch: String) async throws -> Bool {
        struct Element: Decodable { var name: String }
        // A branch's slashes stay path separators, as GitHub reads them; `#`, `%` and the like are escaped.
        let path = branch.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? branch
        let url = "\(configuration.apiURL)/repos/\(repository.owner)/\(repository.name)/branches/\(path)"
        do {
            return try await send(url: url, kind: .branchLookup, repository: repository) { response in
                try PayloadDecoder().decode(Element.self, from: response.body).name == branch
            }.value
        } catch GitHubError.notFound {
            return false
        }
    }
}
