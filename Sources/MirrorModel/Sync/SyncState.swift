import Foundation

// The sync engine's bookkeeping as values (walks, their frontier and
// checkpoints, the per-branch sync state); each store keeps them its own way.

/// A listing pinned to one head, walked page by page. Its checkpoint (next
/// page URL and missing parents) is stored with each page, so an interrupted
/// walk resumes exactly where it stopped.
public struct Walk: Sendable, Equatable {
    public var id: Int64
    public var headSHA: String
    /// `nil` until the first page is stored.
    public var nextURL: String?
    public var pagesDone: Int
    /// The listing's page count as its `last` link gave it; bounded as a link's is
    /// (`PageNumber.largest`), also when an older version stored it unbounded.
    public var pagesTotal: Int?
    /// The sha the current listing is pinned to: `headSHA`, or a parent the
    /// head's listing left out, listed on its own. `nil` means `headSHA`.
    public var listingSHA: String?

    public init(
        id: Int64, headSHA: String, nextURL: String? = nil, pagesDone: Int = 0, pagesTotal: Int? = nil,
        listingSHA: String? = nil
    ) {
        self.id = id
        self.headSHA = headSHA
        self.nextURL = nextURL
        self.pagesDone = pagesDone
        self.pagesTotal = pagesTotal.map { min($0, PageNumber.largest) }
        self.listingSHA = listingSHA
    }
}

extension Walk {
    /// The checkpoint after one more stored page: where the listing goes on, and the count.
    public func advanced(nextURL: String?, pagesTotal: Int?) -> Walk {
        var checkpoint = self
        checkpoint.nextURL = nextURL
        checkpoint.pagesDone += 1
        if let pagesTotal { checkpoint.pagesTotal = pagesTotal }
        return checkpoint
    }
}

/// What the store knows about syncing one branch (what a status report shows).
public struct SyncState: Sendable, Equatable, Codable {
    public var repository: String
    public var branch: String
    public var headSHA: String?
    public var headETag: String?
    public var complete: Bool
    public var lastAttemptAt: String?
    public var lastSuccessAt: String?
    public var lastError: String?
    public var rateLimitRemaining: Int?
    public var rateLimitResetAt: String?
    public var pendingWalks: Int
    public var commits: Int
    /// Whether the repository is still mirrored (gone and removed ones keep their history).
    public var repositoryState: RepositoryState = .active
    /// Why it is gone or removed.
    public var stateReason: String?
    /// Since when the branch is gone from GitHub (deleted, or no longer listed); `nil` while it exists.
    /// Its commits stay stored, and it is mirrored again when it comes back.
    public var branchGoneSince: String?

    public init(
        repository: String, branch: String, headSHA: String?, headETag: String?, complete: Bool,
        lastAttemptAt: String?, lastSuccessAt: String?, lastError: String?, rateLimitRemaining: Int?,
        rateLimitResetAt: String?, pendingWalks: Int, commits: Int, repositoryState: RepositoryState = .active,
        stateReason: String? = nil, branchGoneSince: String? = nil
    ) {
        self.repository = repository
        self.branch = branch
        self.headSHA = headSHA
        self.headETag = headETag
        self.complete = complete
        self.lastAttemptAt = lastAttemptAt
        self.lastSuccessAt = lastSuccessAt
        self.lastError = lastError
        self.rateLimitRemaining = rateLimitRemaining
        self.rateLimitResetAt = rateLimitResetAt
        self.pendingWalks = pendingWalks
        self.commits = commits
        self.repositoryState = repositoryState
        self.stateReason = stateReason
        self.branchGoneSince = branchGoneSince
    }
}
