import Foundation

// What a store answers about syncing, whichever backend stores it: values
// mapped once at the store's boundary.

/// What storing one page changed.
public struct PageOutcome: Sendable, Equatable {
    /// Commits that joined this repository (new rows, or shared with another repository).
    public var added = 0
    /// Existing commits whose stored data changed (newest data wins).
    public var updated = 0
    /// Parents still missing for the walk after this page (0 = the walk may stop).
    public var frontier = 0

    public init() {}
}

/// What re-marking the repository's commits against its heads changed.
public struct BranchMarks: Sendable, Equatable {
    /// Commits that left every mirrored branch (kept, hidden from queries).
    public var leftBranch = 0
    /// Commits marked before that a branch reaches again.
    public var returned = 0

    public init(leftBranch: Int = 0, returned: Int = 0) {
        self.leftBranch = leftBranch
        self.returned = returned
    }

    package static func + (lhs: BranchMarks, rhs: BranchMarks) -> BranchMarks {
        BranchMarks(leftBranch: lhs.leftBranch + rhs.leftBranch, returned: lhs.returned + rhs.returned)
    }
}

/// One mirrored branch, its head and when that was committed.
public struct BranchHead: Sendable, Equatable {
    public var repository: String
    public var branch: String
    /// The newest head whose history is stored.
    public var head: String?
    /// The head's committer date; `nil` when the branch has no stored head
    /// (an empty repository, or a first sync still walking).
    public var committedAt: Date?

    public init(repository: String, branch: String, head: String?, committedAt: Date?) {
        self.repository = repository
        self.branch = branch
        self.head = head
        self.committedAt = committedAt
    }
}

/// Requests of one kind one token spent in a period.
public struct SpentRequests: Sendable, Equatable {
    public var token: String
    public var kind: RequestKind
    public var tally: RequestTally

    public init(token: String, kind: RequestKind, tally: RequestTally) {
        self.token = token
        self.kind = kind
        self.tally = tally
    }
}
