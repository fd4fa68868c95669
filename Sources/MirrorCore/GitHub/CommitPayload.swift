import Foundation

/// One element of GitHub's "list commits" response, reduced to what the mirror
/// stores. Unknown fields are ignored by `Decodable`; see LIST-COMMITS.md §2.
public struct CommitPayload: Decodable, Sendable, Equatable {
    public var sha: String
    public var commit: GitCommit
    public var htmlURL: String?
    /// The GitHub account of the author; `nil` when GitHub sent `null` or `{}`.
    public var author: GitHubUser?
    public var committer: GitHubUser?
    public var parents: [ParentReference]

    enum CodingKeys: String, CodingKey {
        case sha, commit, author, committer, parents
        case htmlURL = "html_url"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        sha = try container.decode(String.self, forKey: .sha)
        guard sha.count == 40, sha.utf8.allSatisfy(\.isHexDigit) else {
            throw DecodingError.dataCorruptedError(
                forKey: .sha, in: container, debugDescription: "not a 40-hex commit sha: \(sha.prefix(60))")
        }
        commit = try container.decode(GitCommit.self, forKey: .commit)
        htmlURL = try container.decodeIfPresent(String.self, forKey: .htmlURL)
        // `{}` decodes as a user without a login; treat it exactly like `null`.
        author = try container.decodeIfPresent(GitHubUser.self, forKey: .author).flatMap { $0.login == nil ? nil : $0 }
        committer = try container.decodeIfPresent(GitHubUser.self, forKey: .committer).flatMap { $0.login == nil ? nil : $0 }
        parents = try container.decode([ParentReference].self, forKey: .parents)
    }

    public init(
        sha: String, commit: GitCommit, htmlURL: String?, author: GitHubUser?,
        committer: GitHubUser?, parents: [ParentReference]
    ) {
        self.sha = sha
        self.commit = commit
        self.htmlURL = htmlURL
        self.author = author
        self.committer = committer
        self.parents = parents
    }
}

/// The git-level commit inside a payload: signatures and message.
public struct GitCommit: Decodable, Sendable, Equatable {
    /// `nil` only if GitHub sends `null` (allowed by the schema, never seen).
    public var author: GitSignature?
    public var committer: GitSignature?
    public var message: String
    public var tree: TreeReference?

    public init(author: GitSignature?, committer: GitSignature?, message: String, tree: TreeReference?) {
        self.author = author
        self.committer = committer
        self.message = message
        self.tree = tree
    }
}

/// A git author or committer line: who, and when.
public struct GitSignature: Decodable, Sendable, Equatable {
    public var name: String
    public var email: String
    public var date: Date

    public init(name: String, email: String, date: Date) {
        self.name = name
        self.email = email
        self.date = date
    }
}

public struct GitHubUser: Decodable, Sendable, Equatable {
    public var login: String?

    public init(login: String?) { self.login = login }
}

public struct ParentReference: Decodable, Sendable, Equatable {
    public var sha: String

    public init(sha: String) { self.sha = sha }
}

public struct TreeReference: Decodable, Sendable, Equatable {
    public var sha: String
}
