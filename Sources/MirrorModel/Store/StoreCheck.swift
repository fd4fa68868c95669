/// What a store check found: the file's integrity, its foreign keys, and
/// how complete each mirrored branch is.
public struct StoreCheck: Sendable, Equatable {
    /// `PRAGMA integrity_check` rows: `["ok"]` for a sound file.
    public var integrity: [String]
    /// `PRAGMA foreign_key_check` rows, as `table rowid → parent`.
    public var foreignKeyViolations: [String]
    /// Commits whose message `commits_fts` does not hold (a message search would miss them).
    public var unindexedMessages: Int
    /// Commits stored beyond what the message index covers yet: by design, not
    /// damage (a search tests them row by row until the index catches up).
    public var messageIndexLag = 0
    /// Authors whose row of `author_commit_counts` (the totals `show` and `authors`
    /// read instead of counting) differs from the commits they authored.
    public var miscountedAuthors = 0
    /// Commits whose recorded earliest containing tag (`show`'s "Included in") is not what
    /// the tags and history give now: not damage, since a sync without tags (`tags: false`,
    /// an import) leaves it for the next sync that reads them.
    public var staleTagContainment = 0
    /// Stored commits whose changed paths are not stored yet: coverage, not damage (`query --
    /// PATH` counts them as not covered; a backfill reads them, `paths: false` keeps them so).
    public var commitsWithoutPaths = 0
    public var branches: [BranchCompleteness]

    public var integrityOK: Bool { integrity == ["ok"] }
    /// The file is damaged, or a branch claims a completeness it does not have.
    public var isDamaged: Bool {
        !integrityOK || !foreignKeyViolations.isEmpty || unindexedMessages > 0 || miscountedAuthors > 0
            || branches.contains(where: \.isInconsistent)
    }
    /// Every branch still mirrored is complete (a gone or removed repository's history stays as it was).
    public var isComplete: Bool { branches.allSatisfy { $0.isComplete || !$0.mirrored } }

    public init(integrity: [String], foreignKeyViolations: [String], unindexedMessages: Int, branches: [BranchCompleteness]) {
        self.integrity = integrity
        self.foreignKeyViolations = foreignKeyViolations
        self.unindexedMessages = unindexedMessages
        self.branches = branches
    }
}

/// One repository and branch of `sync_state`, checked against the stored graph.
public struct BranchCompleteness: Sendable, Equatable {
    public var repository: String
    public var branch: String
    public var commits: Int
    public var headSHA: String?
    /// The `complete` flag the sync engine recorded.
    public var markedComplete: Bool
    /// Walks an interrupted sync left to resume.
    public var pendingWalks: Int
    /// Distinct parents of the repository's commits on its branches that the repository does not hold
    /// (commits kept off the branches may lack theirs: a walk dropped when its head left the branch).
    public var missingParents: Int
    /// Whether the recorded head is one of the repository's commits (`nil`: no head recorded).
    public var headStored: Bool?
    /// The repository is still mirrored (not gone or removed): its branches are expected to complete.
    public var mirrored = true
    /// Its `branch_commits` rows against what its head reaches; `nil` when not compared
    /// (no head, or not marked complete: the rows follow the head the sync recorded).
    public var membership: BranchMembershipCheck?

    public init(
        repository: String, branch: String, commits: Int, headSHA: String?, markedComplete: Bool, pendingWalks: Int,
        missingParents: Int, headStored: Bool?, mirrored: Bool
    ) {
        self.repository = repository
        self.branch = branch
        self.commits = commits
        self.headSHA = headSHA
        self.markedComplete = markedComplete
        self.pendingWalks = pendingWalks
        self.missingParents = missingParents
        self.headStored = headStored
        self.mirrored = mirrored
    }

    public var isComplete: Bool {
        markedComplete && pendingWalks == 0 && missingParents == 0 && headStored != false && membership?.isExact != false
    }

    /// Marked complete, yet parents or the head are missing, or its rows do not
    /// match its head: damage, not progress.
    public var isInconsistent: Bool {
        markedComplete && pendingWalks == 0 && (missingParents > 0 || headStored == false)
            || markedComplete && membership?.isExact == false
    }
}

/// A branch's `branch_commits` rows compared with the commits its recorded head
/// reaches through stored parents (`check`).
public struct BranchMembershipCheck: Sendable, Equatable {
    public var rows: Int
    public var reached: Int
    /// Reached, but not in the rows.
    public var missing: Int
    /// In the rows, but not reached.
    public var extra: Int

    public init(rows: Int, reached: Int, missing: Int, extra: Int) {
        self.rows = rows
        self.reached = reached
        self.missing = missing
        self.extra = extra
    }

    public var isExact: Bool { missing == 0 && extra == 0 }
}
