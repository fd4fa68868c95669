import Curl
import Foundation
import MirrorModel

/// Pull request listings: `GET /repos/{o}/{r}/pulls` by update, newest first,
/// one page per call (docs/GITHUB-API.md, "Tags, releases and pull requests").
/// Pagination, where a listing stops and what it must be consistent with live in
/// `SyncEngine.syncPullRequests`.
extension GitHubClient {
    /// An answer for one page of a pull request listing.
    public enum PullRequestsPage: Sendable, Equatable {
        /// 304: the page is the one the ETag sent was taken from.
        case notModified
        /// `skipped` counts the elements that were not a readable pull request.
        case listed(pullRequests: [PullRequest], skipped: Int, etag: String?, next: String?)
    }

    /// The first page of `repository`'s pull requests of every state, most recently updated first.
    public func pullRequestsURL(_ repository: RepositoryName) -> String {
        "\(configuration.apiURL)/repos/\(repository.owner)/\(repository.name)/pulls?state=all&sort=updated&direction=desc&per_page=100"
    }

    /// One page of a pull request listing, sent with `If-None-Match: <etag>` when one is
    /// known (answered 304, free when authenticated, when the page is unchanged).
    /// Throws `GitHubError.notFound` when GitHub knows no such repository.
    public func pullRequestsPage(url: String, repository: RepositoryName, etag: String?) async throws -> PullRequestsPage {
        var headers: HTTPHeaders = []
        if let etag { headers.add(name: "If-None-Match", value: etag) }
        return try await send(url: url, headers: headers, kind: .pullRequests, repository: repository) {
            response -> PullRequestsPage in
            if response.status == 304 { return .notModified }
            let links = try LinkHeader.of(response.headers["link"], redact: redact)
            let elements = try PayloadDecoder().decode([PullRequestElement].self, from: response.body)
            let pullRequests = elements.compactMap(\.pullRequest)
            return .listed(
                pullRequests: pullRequests, skipped: elements.count - pullRequests.count, etag: response.headers["etag"],
                next: links?.next)
        }.value
    }
}

/// A pull request as GitHub lists it; every field optional, so one bad element is skipped, not the page.
private struct PullRequestElement: Decodable {
    struct User: Decodable { var login: String? }
    struct Side: Decodable {
        var ref: String?
        var sha: String?
    }
    var number: Int?
    var title: String?
    var state: String?
    var user: User?
    var head: Side?
    var base: Side?
    var mergeCommitSHA: String?
    var createdAt: String?
    var updatedAt: String?
    var closedAt: String?
    var mergedAt: String?

    enum CodingKeys: String, CodingKey {
        case number, title, state, user, head, base
        case mergeCommitSHA = "merge_commit_sha"
        case createdAt = "created_at"
        case updatedAt = "updated_at"
        case closedAt = "closed_at"
        case mergedAt = "merged_at"
    }

    /// The element as a pull request, when every field it must have is there and well formed.
    var pullRequest: PullRequest? {
        guard let number, number > 0, let title, let state = state.flatMap(PullRequest.State.init(rawValue:)),
            let baseRef = base?.ref, let headRef = head?.ref, let headSHA = head?.sha.flatMap(Self.objectID),
            let created = Self.date(createdAt), let updated = Self.date(updatedAt)
        else { return nil }
        // Present but malformed is unreadable, where absent is only unknown.
        let merge = mergeCommitSHA.map(Self.objectID)
        let (closed, merged) = (closedAt.map { Self.date($0) }, mergedAt.map { Self.date($0) })
        if merge == .some(nil) || closed == .some(nil) || merged == .some(nil) { return nil }
        return PullRequest(
            number: number, title: title, state: state, authorLogin: user?.login, baseRef: baseRef, headRef: headRef,
            headSHA: headSHA, mergeCommitSHA: merge ?? nil, createdAt: created, updatedAt: updated, closedAt: closed ?? nil,
            mergedAt: merged ?? nil)
    }

    /// A full commit id, lowercased.
    private static func objectID(_ text: String) -> String? {
        text.utf8.count == 40 && text.utf8.allSatisfy(\.isHexDigit) ? text.lowercased() : nil
    }

    /// A date in the one form the store compares them in.
    private static func date(_ text: String?) -> String? {
        text.flatMap { ISO8601Timestamp.parse($0) }.map { ISO8601Timestamp.format($0) }
    }
}
