import MirrorCore

// Walks and their frontier: a listing pinned to one head, walked page by page,
// and the parents it still misses. The page's own step (`FrontierStep`) is the
// backend's page write path; what happens around a walk is written here once.

extension SQLBookkeeping {
    /// Unfinished walks for the branch, newest first (the order they resume in).
    public func pendingWalks(repositoryID: Int64, branch: String) throws -> [Walk] {
        try session.rows(WalkStatements.pending, [repositoryID, branch]) {
            Walk(
                id: $0.int64(0) ?? 0, headSHA: $0.string(1) ?? "", nextURL: $0.string(2),
                pagesDone: $0.int(3) ?? 0, pagesTotal: $0.int(4), listingSHA: $0.string(5))
        }
    }

    public func beginWalk(repositoryID: Int64, branch: String, headSHA: String) throws -> Walk {
        try write {
            Walk(id: try insertWalk(repositoryID: repositoryID, branch: branch, headSHA: headSHA), headSHA: headSHA)
        }
    }

    /// A walk that repairs a branch left incomplete with no walk to finish it
    /// (stores written before walks re-listed missing parents): its frontier is
    /// every parent a commit still on the branch names but the branch does not hold.
    public func beginRepairWalk(repositoryID: Int64, branch: String, headSHA: String) throws -> Walk {
        try write {
            let walkID = try insertWalk(repositoryID: repositoryID, branch: branch, headSHA: headSHA)
            try session.run(WalkStatements.repairFrontier, [walkID, repositoryID])
            return Walk(id: walkID, headSHA: headSHA)
        }
    }

    private func insertWalk(repositoryID: Int64, branch: String, headSHA: String) throws -> Int64 {
        try session.firstRow(WalkStatements.insert, [repositoryID, branch, headSHA]) { $0.int64(0) }.flatMap { $0 } ?? 0
    }

    /// Ends a walk whose frontier is empty: its history is whole.
    public func finishWalk(_ walk: Walk) throws {
        try write { try session.run(WalkStatements.finish, [walk.id]) }
    }

    public func hasPendingWalks(repositoryID: Int64, otherThan branch: String) throws -> Bool {
        try session.firstRow(WalkStatements.otherPending, [repositoryID, branch]) { _ in true } ?? false
    }

    /// Parents the walk still misses (a bounded sample).
    public func missingParents(walkID: Int64, limit: Int) throws -> [String] {
        try session.rows(WalkStatements.missingParents, [walkID, limit]) { $0.string(0) }.compactMap { $0 }
    }

    /// Drops the walk's missing parents that other walks have stored since;
    /// returns how many are still missing.
    public func pruneFrontier(walkID: Int64, repositoryID: Int64) throws -> Int {
        try write {
            try session.run(WalkStatements.pruneFrontier, [walkID, repositoryID])
            return try frontierCount(walkID: walkID)
        }
    }

    public func frontierCount(walkID: Int64) throws -> Int {
        try session.scalarInt(WalkStatements.frontierCount, [walkID]) ?? 0
    }
}

/// The walks' statements, each written once for both dialects.
public enum WalkStatements {
    static let pending = PortableSQL(
        """
        SELECT id, head_sha, next_url, pages_done, pages_total, listing_sha FROM sync_walks
        WHERE repository_id = ? AND branch = ? ORDER BY id DESC
        """)
    static let insert = PortableSQL(
        "INSERT INTO sync_walks (repository_id, branch, head_sha) VALUES (?, ?, ?) RETURNING id")
    static let repairFrontier = PortableSQL(
        """
        INSERT INTO sync_frontier (walk_id, sha)
        SELECT DISTINCT CAST(?1 AS BIGINT), cp.parent_sha FROM repository_commits rc
        JOIN commit_parents cp ON cp.commit_id = rc.commit_id
        WHERE rc.repository_id = ?2 AND rc.off_branch_since IS NULL AND NOT EXISTS (
            SELECT 1 FROM commits p JOIN repository_commits prc ON prc.commit_id = p.id AND prc.repository_id = ?2
            WHERE p.sha = cp.parent_sha AND prc.off_branch_since IS NULL)
        ON CONFLICT DO NOTHING
        """)
    static let finish = PortableSQL("DELETE FROM sync_walks WHERE id = ?")
    static let otherPending = PortableSQL("SELECT 1 FROM sync_walks WHERE repository_id = ? AND branch <> ? LIMIT 1")
    static let missingParents = PortableSQL("SELECT sha FROM sync_frontier WHERE walk_id = ? LIMIT ?")
    static let pruneFrontier = PortableSQL(
        """
        DELETE FROM sync_frontier WHERE walk_id = ?1 AND EXISTS (
            SELECT 1 FROM commits c JOIN repository_commits rc ON rc.commit_id = c.id AND rc.repository_id = ?2
            WHERE c.sha = sync_frontier.sha AND rc.off_branch_since IS NULL)
        """)
    /// Public for the page write paths, which count the frontier after each page their own way.
    public static let frontierCount = PortableSQL("SELECT count(*) FROM sync_frontier WHERE walk_id = ?")
}

/// The per-branch sync state as `status` and the sync engine see it: one query
/// and one mapping, for the writer and the reader alike.
public enum SyncStateRows {
    /// Every branch's state; each backend orders the rows by its own collation.
    public static let query = """
        SELECT r.full_name, s.branch, s.head_sha, s.head_etag, s.complete, s.last_attempt_at, s.last_success_at,
               s.last_error, s.rate_limit_remaining, s.rate_limit_reset_at,
               (SELECT count(*) FROM sync_walks w WHERE w.repository_id = s.repository_id AND w.branch = s.branch),
               (SELECT count(*) FROM repository_commits rc WHERE rc.repository_id = s.repository_id),
               r.state, r.state_reason, CASE WHEN b.state = 'gone' THEN coalesce(b.gone_since, '') END
        FROM sync_state s JOIN repositories r ON r.id = s.repository_id
        LEFT JOIN repository_branches b ON b.repository_id = s.repository_id AND b.name = s.branch
        """
    static let one = PortableSQL(query + " WHERE s.repository_id = ? AND s.branch = ?")

    public static func one(repositoryID: Int64, branch: String, in session: some SQLSession) throws -> SyncState? {
        try session.firstRow(one, [repositoryID, branch], state(from:))
    }

    public static func state(from row: any SQLRow) -> SyncState {
        SyncState(
            repository: row.string(0) ?? "", branch: row.string(1) ?? "", headSHA: row.string(2),
            headETag: row.string(3), complete: row.bool(4) ?? false, lastAttemptAt: row.string(5),
            lastSuccessAt: row.string(6), lastError: row.string(7), rateLimitRemaining: row.int(8),
            rateLimitResetAt: row.string(9), pendingWalks: row.int(10) ?? 0, commits: row.int(11) ?? 0,
            repositoryState: row.string(12).flatMap(RepositoryState.init(rawValue:)) ?? .active,
            stateReason: row.string(13), branchGoneSince: row.string(14))
    }
}
