import SQLite

/// What a store check found: the file's integrity, its foreign keys, and
/// how complete each mirrored branch is.
public struct StoreCheck: Sendable, Equatable {
    /// `PRAGMA integrity_check` rows: `["ok"]` for a sound file.
    public var integrity: [String]
    /// `PRAGMA foreign_key_check` rows, as `table rowid → parent`.
    public var foreignKeyViolations: [String]
    /// Commits whose message `commits_fts` does not hold (a message search would miss them).
    public var unindexedMessages: Int
    public var branches: [BranchCompleteness]

    public var integrityOK: Bool { integrity == ["ok"] }
    /// The file is damaged, or a branch claims a completeness it does not have.
    public var isDamaged: Bool {
        !integrityOK || !foreignKeyViolations.isEmpty || unindexedMessages > 0 || branches.contains(where: \.isInconsistent)
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
        markedComplete && pendingWalks == 0 && missingParents == 0 && headStored != false
    }

    /// Marked complete, yet parents or the head are missing: damage, not progress.
    public var isInconsistent: Bool {
        markedComplete && pendingWalks == 0 && (missingParents > 0 || headStored == false)
    }
}

extension MirrorReader {
    /// Integrity, foreign keys, and per branch: the complete flag, pending walks,
    /// and parents referenced by the repository's commits that it does not hold
    /// (0 for an exact mirror: the history is closed down to its roots).
    public func check() throws -> StoreCheck {
        let integrity = try db.prepare("PRAGMA integrity_check").map { $0.string(0) }
        let foreignKeys = try db.prepare("PRAGMA foreign_key_check").map { row in
            "\(row.string(0)) row \(row.optionalInt(1).map(String.init) ?? "?") → \(row.string(2))"
        }
        // The index's per-document table has a row for each indexed message
        // (PRAGMA integrity_check does not look inside FTS5 tables before SQLite 3.44).
        let unindexed =
            try db.scalarInt(
                "SELECT count(*) FROM commits c WHERE NOT EXISTS (SELECT 1 FROM commits_fts_docsize d WHERE d.id = c.id)") ?? 0
        let missing = try db.prepare(
            """
            SELECT count(DISTINCT cp.parent_sha) FROM repository_commits rc
            JOIN commit_parents cp ON cp.commit_id = rc.commit_id
            WHERE rc.repository_id = ?1 AND rc.off_branch_since IS NULL AND NOT EXISTS (
                SELECT 1 FROM commits p JOIN repository_commits prc ON prc.commit_id = p.id AND prc.repository_id = ?1
                WHERE p.sha = cp.parent_sha)
            """)
        let headStored = try db.prepare(
            """
            SELECT 1 FROM commits c JOIN repository_commits rc ON rc.commit_id = c.id AND rc.repository_id = ?
            WHERE c.sha = ?
            """)
        let rows = try db.prepare(
            """
            SELECT s.repository_id, r.full_name, s.branch, s.head_sha, s.complete,
                   (SELECT count(*) FROM sync_walks w WHERE w.repository_id = s.repository_id AND w.branch = s.branch),
                   (SELECT count(*) FROM repository_commits rc WHERE rc.repository_id = s.repository_id),
                   r.state = 'active'
            FROM sync_state s JOIN repositories r ON r.id = s.repository_id
            ORDER BY r.full_name, s.branch
            """
        ).map { row in
            (
                id: row.int64(0), repository: row.string(1), branch: row.string(2), head: row.optionalString(3),
                complete: row.int(4) != 0, walks: row.int(5), commits: row.int(6), mirrored: row.int(7) != 0
            )
        }
        var branches: [BranchCompleteness] = []
        for row in rows {
            let missingParents = try missing.bind([row.id]).first { $0.int(0) } ?? 0
            let stored = try row.head.map { try headStored.bind([row.id, $0]).first { _ in true } ?? false }
            branches.append(
                BranchCompleteness(
                    repository: row.repository, branch: row.branch, commits: row.commits, headSHA: row.head,
                    markedComplete: row.complete, pendingWalks: row.walks, missingParents: missingParents,
                    headStored: stored, mirrored: row.mirrored))
        }
        return StoreCheck(
            integrity: integrity, foreignKeyViolations: foreignKeys, unindexedMessages: unindexed, branches: branches)
    }
}
