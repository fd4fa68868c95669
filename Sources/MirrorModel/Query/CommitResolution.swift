/// One commit in full, with its place among its author's commits.
public struct CommitDetail: Sendable, Equatable {
    public var commit: CommitSummary
    /// This commit's place among the commits by the same author name, oldest
    /// first: `position` of `count` (1 = their first commit in the store).
    public var authorPosition: Int
    public var authorCommitCount: Int
    /// People its `Co-authored-by:` trailers credit, in message order.
    public var coAuthors: [Person.Identity] = []
    /// The mirrored branches whose recorded head reaches it (`branch_commits`),
    /// per repository: repositories by name (ASCII case ignored), branches in byte order.
    public var branches: [RepositoryBranches] = []
    /// What it changed against each parent (by parent, then path bytes); nil
    /// while its paths are not known yet.
    public var changes: [FileChange]?
    /// Per repository, the earliest tag that contains it (`git tag --contains --sort=creatordate`).
    public var includedIn: [RepositoryTag] = []
    /// The pull requests it merged or was the head of (`PullRequestReading.pullRequests(involving:)`).
    public var pullRequests: [RepositoryPullRequest] = []

    public init(
        commit: CommitSummary, authorPosition: Int, authorCommitCount: Int, coAuthors: [Person.Identity] = [],
        branches: [RepositoryBranches] = [], changes: [FileChange]? = nil
    ) {
        self.commit = commit
        self.authorPosition = authorPosition
        self.authorCommitCount = authorCommitCount
        self.coAuthors = coAuthors
        self.branches = branches
        self.changes = changes
    }
}

/// A repository's tag, by name.
public struct RepositoryTag: Sendable, Equatable {
    public var repository: String
    public var tag: String

    public init(repository: String, tag: String) {
        self.repository = repository
        self.tag = tag
    }
}

/// One repository's branches that contain a commit (`show`'s answer to `git branch --contains`).
public struct RepositoryBranches: Sendable, Equatable {
    public var repository: String
    public var names: [String]

    public init(repository: String, names: [String]) {
        self.repository = repository
        self.names = names
    }

    /// (repository, branch) pairs in order, grouped by repository.
    public static func grouping(_ pairs: [(repository: String, branch: String)]) -> [RepositoryBranches] {
        var groups: [RepositoryBranches] = []
        for pair in pairs {
            if groups.last?.repository == pair.repository {
                groups[groups.count - 1].names.append(pair.branch)
            } else {
                groups.append(RepositoryBranches(repository: pair.repository, names: [pair.branch]))
            }
        }
        return groups
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

    /// The answer for the ids of the commits a prefix matched, oldest sha first and at most
    /// `ambiguityListLimit + 1` of them, so that every store tells one match from many alike;
    /// `total` counts the matches only when more were found than are listed.
    public static func matching(
        _ ids: [Int64], detail: (Int64) throws -> CommitDetail, total: () throws -> Int,
        summaries: (ArraySlice<Int64>) throws -> [CommitSummary]
    ) rethrows -> CommitResolution {
        switch ids.count {
        case 0:
            return .notFound
        case 1:
            return .found(try detail(ids[0]))
        default:
            let total = ids.count > ambiguityListLimit ? try total() : ids.count
            return .ambiguous(try summaries(ids.prefix(ambiguityListLimit)), total: total)
        }
    }
}
