import MirrorTestSupport
import Foundation
@testable import MirrorCore
@testable import MirrorSQLite
import SQLite

/// A small fixed store for golden-output tests of the query commands: every
/// byte of output depends only on this data.
enum QueryCLIFixture {
    struct Commit {
        var sha: String
        var message: String
        var author: (name: String, email: String, login: String?)
        var committer: (name: String, email: String)?
        var date: String
        var authorDate: String?
        var parents: [String]
        var repositories: [String]
    }

    static let shaA1 = "aaaa111111111111111111111111111111111111"
    static let shaA2 = "aaaa222222222222222222222222222222222222"
    static let shaB = "bbbb333333333333333333333333333333333333"
    static let shaC = "cccc444444444444444444444444444444444444"
    static let shaD = "dddd555555555555555555555555555555555555"

    static let ada = (name: "Ada Lovelace", email: "ada@example.com", login: Optional("ada"))

    /// Newest first.
    static let commits: [Commit] = [
        Commit(
            sha: shaA1, message: "Fix the parser, again\n\nA body with \"quotes\", commas, and a\nsecond line.",
            author: ada, committer: nil, date: "2024-03-05T10:00:00Z", authorDate: "2024-03-04T22:15:00Z",
            parents: [shaA2], repositories: ["acme/widgets"]),
        Commit(
            sha: shaA2, message: "Merge pull request #7 from zoe/feature\n\nAdd the feature",
            author: (name: "Zoë Ünïcödé", email: "zoe@example.com", login: nil),
            committer: (name: "GitHub", email: "noreply@github.com"), date: "2024-03-04T09:30:00Z",
            parents: [shaB, shaC], repositories: ["acme/widgets"]),
        Commit(
            sha: shaB, message: "日本語のコミット: 幅の広い文字",
            author: (name: "山田 太郎", email: "taro@example.jp", login: "taro"), committer: nil,
            date: "2024-03-03T08:00:00Z", parents: [shaD], repositories: ["acme/widgets"]),
        Commit(
            sha: shaC, message: "Sanitize \u{1B}[31mred\u{1B}[0m output\tplease",
            author: (name: "Mallory", email: "m@example.com", login: nil), committer: nil,
            date: "2024-03-02T12:00:00Z", parents: [shaD], repositories: ["acme/widgets"]),
        Commit(
            sha: shaD, message: #"100% literal_match with a \ backslash"#,
            author: ada, committer: nil, date: "2024-03-01T00:00:00Z", parents: [],
            repositories: ["acme/fork", "acme/widgets"]),
    ]

    /// The fixture built as `name` in a fresh directory; the store lives as long as the directory.
    static func fresh(_ name: String) throws -> (directory: TemporaryDirectory, db: String) {
        let directory = try TemporaryDirectory()
        let db = directory.path(name)
        try build(at: db)
        return (directory, db)
    }

    /// Builds the store at `path` through the store's upsert path.
    static func build(at path: String) throws {
        let store = try MirrorStore(path: path)
        for repository in ["acme/widgets", "acme/fork"] {
            let repo = try store.ensureRepository(named: RepositoryName(parsing: repository)!)
            let payloads = commits.filter { $0.repositories.contains(repository) }.map(payload)
            try store.db.transaction { _ = try store.upsert(payloads.map(MirrorCore.Commit.init), repositoryID: repo.id) }
        }
        // As a sync leaves it: the message index caught up (Datasette searches it directly).
        try store.catchUpMessageIndex()
        let widgets = try store.repository(named: RepositoryName(parsing: "acme/widgets")!)!
        try store.recordAttempt(repositoryID: widgets.id, branch: "main", at: Date(timeIntervalSince1970: 1_710_000_000))
        try store.recordSuccess(
            repositoryID: widgets.id, branch: "main", headSHA: shaA1, headETag: nil,
            complete: true, rateLimit: nil, at: Date(timeIntervalSince1970: 1_710_000_000))
    }

    static func payload(_ commit: Commit) -> CommitPayload {
        let committed = ISO8601Timestamp.parse(commit.date)!
        let authored = commit.authorDate.map { ISO8601Timestamp.parse($0)! } ?? committed
        let committer = commit.committer ?? (commit.author.name, commit.author.email)
        return CommitPayload(
            sha: commit.sha,
            commit: GitCommit(
                author: GitSignature(name: commit.author.name, email: commit.author.email, date: authored),
                committer: GitSignature(name: committer.0, email: committer.1, date: committed),
                message: commit.message, tree: nil),
            htmlURL: "https://github.com/acme/widgets/commit/\(commit.sha)",
            author: commit.author.login.map { GitHubUser(login: $0) }, committer: nil,
            parents: commit.parents.map(ParentReference.init(sha:)))
    }
}

/// Runs `commitsctl` with a fixed environment: UTC, no $COLUMNS unless given, no store variables.
func commitsctl(_ arguments: [String], columns: Int? = nil, environment: [String: String] = [:]) async throws -> ProcessResult {
    var extra = ["TZ": "UTC"].merging(environment) { _, new in new }
    if let columns { extra["COLUMNS"] = String(columns) }
    return try await run("commitsctl", arguments, environment: extra)
}
