import Foundation

/// A commit as the mirror keeps it, whatever it was read from: mapped once at
/// each boundary (GitHub's REST listing in `GitHub/`, an import file), and
/// what the store's writer accepts.
public struct Commit: Sendable, Equatable {
    /// 40 lowercase hex digits.
    public var sha: String
    public var message: String {
        didSet { coAuthors = CoAuthorTrailers.parse(message) }
    }
    /// The people the message credits with `Co-authored-by:` trailers, in
    /// message order, each once: read when the commit is mapped, so no store
    /// backend parses messages.
    public private(set) var coAuthors: [Identity]
    public var author: Signature
    public var committer: Signature
    /// Parent shas (lowercase), first parent first; more than one for a merge.
    public var parents: [String]
    public var treeSHA: String?
    /// The commit's page on GitHub, when the source knows it.
    public var htmlURL: String?
    /// What the commit changed against each parent, first parent's first; nil
    /// when the commit was read without its trees (a REST listing, an import,
    /// a history read commits-only), which leaves its paths not yet known.
    public var changes: [FileChange]?

    public init(
        sha: String, message: String, author: Signature, committer: Signature, parents: [String],
        treeSHA: String? = nil, htmlURL: String? = nil
    ) {
        self.sha = sha
        self.message = message
        self.coAuthors = CoAuthorTrailers.parse(message)
        self.author = author
        self.committer = committer
        self.parents = parents
        self.treeSHA = treeSHA
        self.htmlURL = htmlURL
    }

    public var isMerge: Bool { parents.count > 1 }
}

/// Who did something to a commit, and when.
public struct Signature: Sendable, Equatable {
    public var identity: Identity
    public var date: Date

    public init(identity: Identity, date: Date) {
        self.identity = identity
        self.date = date
    }
}

/// Someone as a commit names them: the name and email of a signature or a
/// `Co-authored-by:` trailer, and the GitHub account GitHub linked that email
/// to, when it did (`nil` otherwise, or when the source cannot know, e.g. git
/// objects). Several identities can be one `Person` (a mailmap, a login).
public struct Identity: Sendable, Hashable {
    public var name: String
    public var email: String
    public var login: String?

    public init(name: String, email: String, login: String? = nil) {
        self.name = name
        self.email = email
        self.login = login
    }
}
