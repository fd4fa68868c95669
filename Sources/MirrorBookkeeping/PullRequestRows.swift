import MirrorCore

/// `PullRequestReading` written once for every store: each reader supplies its read transaction.
public enum PullRequestRows {
    /// The pull requests of one repository or of all, by repository name then number.
    public static func pullRequests(repositoryID: Int64?, in session: some SQLSession) throws -> [RepositoryPullRequest] {
        try session.rows(repositoryID == nil ? all : ofRepository, repositoryID.map { [$0] } ?? [], repositoryPullRequest(from:))
    }

    public static func pullRequest(_ number: Int, repositoryID: Int64, in session: some SQLSession) throws
        -> RepositoryPullRequest?
    {
        try session.firstRow(numbered, [repositoryID, number], repositoryPullRequest(from:))
    }

    /// The pull requests, of the repositories holding `sha`, that it merged or is the head of.
    public static func pullRequests(involving sha: String, in session: some SQLSession) throws -> [RepositoryPullRequest] {
        let sha = sha.lowercased()
        return try session.rows(involving, [sha, sha], repositoryPullRequest(from:))
    }

    public static func counts(in session: some SQLSession) throws -> [String: Int] {
        let rows = try session.rows(perRepository, []) { row in (row.string(0) ?? "", row.int(1) ?? 0) }
        return Dictionary(rows, uniquingKeysWith: +)
    }

    /// The columns `pullRequest(from:at:)` reads, from `p`.
    static let columns = """
        p.number, p.title, p.state, p.author_login, p.base_ref, p.head_ref, p.head_sha, p.merge_commit_sha,
        p.created_at, p.updated_at, p.closed_at, p.merged_at
        """
    static let one = PortableSQL("SELECT \(columns) FROM pull_requests p WHERE p.repository_id = ? AND p.number = ?")

    /// The pull request whose `columns` start at `first`.
    static func pullRequest(from row: any SQLRow, at first: Int) -> PullRequest {
        PullRequest(
            number: row.int(first) ?? 0, title: row.string(first + 1) ?? "",
            state: PullRequest.State(rawValue: row.string(first + 2) ?? "") ?? .closed, authorLogin: row.string(first + 3),
            baseRef: row.string(first + 4) ?? "", headRef: row.string(first + 5) ?? "", headSHA: row.string(first + 6) ?? "",
            mergeCommitSHA: row.string(first + 7), createdAt: row.string(first + 8) ?? "",
            updatedAt: row.string(first + 9) ?? "", closedAt: row.string(first + 10), mergedAt: row.string(first + 11))
    }

    private static func repositoryPullRequest(from row: any SQLRow) -> RepositoryPullRequest {
        let name = row.string(0) ?? ""
        return RepositoryPullRequest(
            repository: RepositoryName(parsingStored: name) ?? RepositoryName(owner: name, name: ""),
            pullRequest: pullRequest(from: row, at: 2), mergedAs: row.int64(1))
    }

    /// A merged pull request's merge commit, when the repository's history holds it.
    private static let selected = """
        SELECT r.full_name,
               (SELECT c.id FROM commits c JOIN repository_commits rc ON rc.commit_id = c.id AND rc.repository_id = p.repository_id
                WHERE p.merged_at IS NOT NULL AND c.sha = p.merge_commit_sha),
               \(columns)
        FROM pull_requests p JOIN repositories r ON r.id = p.repository_id
        """
    private static let all = PortableSQL(ordered: { order in "\(selected)\nORDER BY \(order.names("r.full_name")), p.number" })
    private static let ofRepository = PortableSQL(ordered: { order in
        "\(selected)\nWHERE p.repository_id = ?\nORDER BY \(order.names("r.full_name")), p.number"
    })
    private static let numbered = PortableSQL("\(selected)\nWHERE p.repository_id = ? AND p.number = ?")
    private static let involving = PortableSQL(ordered: { order in
        """
        \(selected)
        WHERE (p.merge_commit_sha = ? AND p.merged_at IS NOT NULL) OR p.head_sha = ?
        ORDER BY \(order.names("r.full_name")), p.number
        """
    })
    private static let perRepository = PortableSQL(
        "SELECT r.full_name, count(*) FROM repositories r JOIN pull_requests p ON p.repository_id = r.id GROUP BY r.id, r.full_name")
}
