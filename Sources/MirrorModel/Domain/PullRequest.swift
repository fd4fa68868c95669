import Foundation

/// A pull request as GitHub lists it: the fields a mirror keeps to say where a commit came from.
public struct PullRequest: Sendable, Equatable, Hashable {
    public enum State: String, Sendable, Hashable {
        case open, closed
    }

    public var number: Int
    public var title: String
    public var state: State
    /// The login of who opened it (nil for a deleted account).
    public var authorLogin: String?
    /// The branch it asks to be merged into, and its own branch and that branch's tip.
    public var baseRef: String
    public var headRef: String
    public var headSHA: String
    /// The commit GitHub made on the base when it was merged (a merge, squash or rebase commit);
    /// for an unmerged one, GitHub's test merge, which no branch holds.
    public var mergeCommitSHA: String?
    /// ISO 8601 in UTC, as GitHub gives them.
    public var createdAt: String
    public var updatedAt: String
    public var closedAt: String?
    public var mergedAt: String?

    public init(
        number: Int, title: String, state: State, authorLogin: String?, baseRef: String, headRef: String, headSHA: String,
        mergeCommitSHA: String?, createdAt: String, updatedAt: String, closedAt: String? = nil, mergedAt: String? = nil
    ) {
        self.number = number
        self.title = title
        self.state = state
        self.authorLogin = authorLogin
        self.baseRef = baseRef
        self.headRef = headRef
        self.headSHA = headSHA
        self.mergeCommitSHA = mergeCommitSHA
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.closedAt = closedAt
        self.mergedAt = mergedAt
    }

    /// Merged: closed with a merge date.
    public var isMerged: Bool { mergedAt != nil }
}

/// A stored pull request with the repository it belongs to, and whether its merge commit is mirrored.
public struct RepositoryPullRequest: Sendable, Equatable {
    public var repository: RepositoryName
    public var pullRequest: PullRequest
    /// The reader's id of the merge commit, when it is merged and that commit is in the repository's history.
    public var mergedAs: Int64?

    public init(repository: RepositoryName, pullRequest: PullRequest, mergedAs: Int64?) {
        self.repository = repository
        self.pullRequest = pullRequest
        self.mergedAs = mergedAs
    }
}

/// What recording a page of pull requests changed.
public struct PullRequestChanges: Sendable, Equatable {
    public var added = 0
    public var updated = 0
    /// The numbers of pull requests added or updated as merged into the repository's default
    /// branch whose merge commit the repository's mirrored history did not hold when they were
    /// recorded: a server naming another repository's commit, or a merge newer than the branch's sync.
    public var mergesNotHeld: [Int] = []

    public init(added: Int = 0, updated: Int = 0, mergesNotHeld: [Int] = []) {
        self.added = added
        self.updated = updated
        self.mergesNotHeld = mergesNotHeld
    }

    public var isEmpty: Bool { added == 0 && updated == 0 && mergesNotHeld.isEmpty }
}
