/// One commit in full, with its place among its author's commits.
public struct CommitDetail: Sendable, Equatable {
    public var commit: CommitSummary
    /// This commit's place among the commits by the same author name, oldest
    /// first: `position` of `count` (1 = their first commit in the store).
    public var authorPosition: Int
    public var authorCommitCount: Int
    /// People its `Co-authored-by:` trailers credit, in message order.
    public var coAuthors: [Person.Identity] = []

    public init(commit: CommitSummary, authorPosition: Int, authorCommitCount: Int, coAuthors: [Person.Identity] = []) {
        self.commit = commit
        self.authorPosition = authorPosition
        self.authorCommitCount = authorCommitCount
        self.coAuthors = coAuthors
    }
}

/// What a full or abbreviated sha names.
public enum CommitResolution: Sendable, Equatable {
    case found(CommitDetail)
    case notFound
    /// Several commits start with the prefix (at most `ambiguityListLimit` of
    /// them, oldest sha first); `total` says how many there are.
    case ambiguous([CommitSummary], total: Int)
}

extension CommitResolution {
    /// How many candidates an ambiguous prefix lists, in every store.
    public static let ambiguityListLimit = 10

    /// Whether `text` can name a commit: 4 to 40 hex digits.
    public static func isCommitPrefix(_ text: String) -> Bool {
        (4...40).contains(text.utf8.count) && text.utf8.allSatisfy(\.isHexDigit)
    }
}
