import Foundation
import Curl

extension GitHubClient {
    /// How `head` relates to `base`, as GitHub's compare endpoint reports it
    /// (LIST-COMMITS.md §7). Only used to confirm a suspected history rewrite:
    /// a second source, independent of the listings the store was built from.
    public enum Comparison: String, Sendable, Decodable {
        /// `head` descends from `base` (a fast-forward).
        case ahead
        /// `head` is an ancestor of `base` (the branch moved back).
        case behind
        case identical
        /// Neither descends from the other (a force-push onto another history).
        case diverged
    }

    /// `GET /repos/{owner}/{repo}/compare/{base}...{head}?per_page=1`: the
    /// status only (one commit per page keeps the answer small).
    public func compare(_ name: RepositoryName, base: String, head: String) async throws -> Comparison {
        struct Body: Decodable { var status: Comparison }
        let url = "\(configuration.apiURL)/repos/\(name.owner)/\(name.name)/compare/\(base)...\(head)?per_page=1"
        return try await send(url: url, kind: .compare, repository: name) { response in
            try PayloadDecoder().decode(Body.self, from: response.body).status
        }.value
    }
}
