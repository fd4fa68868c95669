import MirrorCore

extension Commitsctl.Show {
    /// `owner/name#12 Title (opened by login, merged 2024-05-01T10:00:00Z as this commit)`.
    static func pullRequestLine(_ found: RepositoryPullRequest, sha: String) -> String {
        let pull = found.pullRequest
        var facts = ["opened by \(pull.authorLogin ?? "a deleted account")"]
        if let merged = pull.mergedAt {
            facts.append(pull.mergeCommitSHA == sha ? "merged \(merged) as this commit" : "merged \(merged)")
        } else {
            facts.append(pull.state == .open ? "open" : "closed unmerged")
        }
        if pull.headSHA == sha { facts.append("this commit its head") }
        return TextCleaning.singleLine("\(found.repository)#\(pull.number) \(pull.title) (\(facts.joined(separator: ", ")))")
    }

    /// One element of `show`'s `pull_requests` field (docs/QUERY.md).
    static func pullRequestField(_ found: RepositoryPullRequest) -> JSONValue {
        let pull = found.pullRequest
        return .object([
            ("repository", .string(found.repository.description)), ("number", .int(pull.number)), ("title", .string(pull.title)),
            ("state", .string(pull.state.rawValue)), ("author_login", .optional(pull.authorLogin)),
            ("base_ref", .string(pull.baseRef)), ("head_ref", .string(pull.headRef)), ("head_sha", .string(pull.headSHA)),
            ("merge_commit_sha", .optional(pull.mergedAt == nil ? nil : pull.mergeCommitSHA)),
            ("created_at", .string(pull.createdAt)), ("updated_at", .string(pull.updatedAt)),
            ("closed_at", .optional(pull.closedAt)), ("merged_at", .optional(pull.mergedAt)),
        ])
    }
}
