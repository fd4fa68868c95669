import Foundation
import MirrorCore
import PostgreSQL

// The sync engine's bookkeeping: the per-branch sync state, walks and their frontier.

extension PostgreSQLStore {
    public func syncState(repositoryID: Int64, branch: String) throws -> SyncState? {
        try SyncStateRows.one(repositoryID: repositoryID, branch: branch, on: connection)
    }

    public func syncStates(repositoryID: Int64? = nil) throws -> [SyncState] {
        try SyncStateRows.all(repositoryID: repositoryID, on: connection)
    }

    public func recordAttempt(repositoryID: Int64, branch: String, at date: Date) throws {
        try write {
            try connection.execute(
                """
                INSERT INTO sync_state (repository_id, branch, last_attempt_at) VALUES ($1, $2, $3)
                ON CONFLICT (repository_id, branch) DO UPDATE SET last_attempt_at = excluded.last_attempt_at
                """, [repositoryID, branch, ISO8601Timestamp.format(date)])
            try ensureBranch(repositoryID: repositoryID, branch: branch)
        }
    }

    public func recordSuccess(
        repositoryID: Int64, branch: String, headSHA: String?, headETag: String?,
        complete: Bool, rateLimit: RateLimitStatus?, at date: Date
    ) throws {
        try write {
            // The commits the head reaches, in the transaction that records it.
            try updateBranchCommits(repositoryID: repositoryID, branch: branch, head: headSHA)
            try connection.execute(
                """
                UPDATE sync_state SET head_sha = $1, head_etag = $2, complete = $3, last_success_at = $4, last_error = NULL,
                    rate_limit_remaining = coalesce($5, rate_limit_remaining),
                    rate_limit_reset_at = coalesce($6, rate_limit_reset_at)
                WHERE repository_id = $7 AND branch = $8
                """,
                [
                    headSHA, headETag, complete, ISO8601Timestamp.format(date), rateLimit?.remaining,
                    rateLimit?.resetAt.map(ISO8601Timestamp.format), repositoryID, branch,
                ])
        }
    }

    public func recordFailure(repositoryID: Int64, branch: String, message: String, rateLimit: RateLimitStatus?) throws {
        try write {
            try connection.execute(
                """
                UPDATE sync_state SET last_error = $1,
                    rate_limit_remaining = coalesce($2, rate_limit_remaining),
                    rate_limit_reset_at = coalesce($3, rate_limit_reset_at)
                WHERE repository_id = $4 AND branch = $5
                """,
                [
                    PageStaging.storable(message), rateLimit?.remaining, rateLimit?.resetAt.map(ISO8601Timestamp.format),
                    repositoryID, branch,
                ])
        }
    }

    public func forgetBranchNeverSynced(repositoryID: Int64, branch: String) throws {
        try write {
            try connection.execute(
                """
                DELETE FROM sync_state WHERE repository_id = $1 AND branch = $2 AND head_sha IS NULL
                    AND last_success_at IS NULL
                    AND NOT EXISTS (SELECT 1 FROM sync_walks w WHERE w.repository_id = $1 AND w.branch = $2)
                """, [repositoryID, branch])
            try connection.execute(
                """
                DELETE FROM repository_branches WHERE repository_id = $1 AND name = $2
                    AND NOT EXISTS (SELECT 1 FROM sync_state s WHERE s.repository_id = $1 AND s.branch = $2)
                """, [repositoryID, branch])
        }
    }

    /// Marks the branch gone and, in the same transaction, the commits only it
    /// reached off-branch (kept, hidden from queries, as after a rewrite).
    @discardableResult
    public func markBranchGone(repositoryID: Int64, branch: String, at date: Date) throws -> Bool {
        try write {
            let marked =
                try connection.execute(
                    """
                    UPDATE repository_branches SET state = 'gone', gone_since = $1
                    WHERE repository_id = $2 AND name = $3 AND state = 'active'
                    """, [ISO8601Timestamp.format(date), repositoryID, branch]
                ).affectedRows > 0
            guard marked else { return false }
            _ = try remark(repositoryID: repositoryID, heads: try mirroredHeads(repositoryID: repositoryID), at: date)
            return true
        }
    }

    // MARK: - Walks

    public func pendingWalks(repositoryID: Int64, branch: String) throws -> [Walk] {
        let rows = try connection.execute(
            """
            SELECT id, head_sha, next_url, pages_done, pages_total, listing_sha FROM sync_walks
            WHERE repository_id = $1 AND branch = $2 ORDER BY id DESC
            """, [repositoryID, branch])
        return (0..<rows.count).map {
            Walk(
                id: rows.int64($0, 0) ?? 0, headSHA: rows.string($0, 1) ?? "", nextURL: rows.string($0, 2),
                pagesDone: rows.int($0, 3) ?? 0, pagesTotal: rows.int($0, 4), listingSHA: rows.string($0, 5))
        }
    }

    public func beginWalk(repositoryID: Int64, branch: String, headSHA: String) throws -> Walk {
        try write {
            let id = try insertWalk(repositoryID: repositoryID, branch: branch, headSHA: headSHA)
            return Walk(id: id, headSHA: headSHA)
        }
    }

    public func beginRepairWalk(repositoryID: Int64, branch: String, headSHA: String) throws -> Walk {
        try write {
            let walkID = try insertWalk(repositoryID: repositoryID, branch: branch, headSHA: headSHA)
            // Every parent a commit still on the branch names but the branch does not hold.
            try connection.execute(
                """
                INSERT INTO sync_frontier (walk_id, sha)
                SELECT DISTINCT $1::bigint, cp.parent_sha FROM repository_commits rc
                JOIN commit_parents cp ON cp.commit_id = rc.commit_id
                WHERE rc.repository_id = $2 AND rc.off_branch_since IS NULL AND NOT EXISTS (
                    SELECT 1 FROM commits p JOIN repository_commits prc ON prc.commit_id = p.id AND prc.repository_id = $2
                    WHERE p.sha = cp.parent_sha AND prc.off_branch_since IS NULL)
                ON CONFLICT DO NOTHING
                """, [walkID, repositoryID])
            return Walk(id: walkID, headSHA: headSHA)
        }
    }

    private func insertWalk(repositoryID: Int64, branch: String, headSHA: String) throws -> Int64 {
        try connection.execute(
            "INSERT INTO sync_walks (repository_id, branch, head_sha) VALUES ($1, $2, $3) RETURNING id",
            [repositoryID, branch, headSHA]
        ).int64(0, 0) ?? 0
    }

    public func hasPendingWalks(repositoryID: Int64, otherThan branch: String) throws -> Bool {
        try connection.execute(
            "SELECT 1 FROM sync_walks WHERE repository_id = $1 AND branch <> $2 LIMIT 1", [repositoryID, branch]
        ).count > 0
    }

    public func finishWalk(_ walk: Walk) throws {
        try write { try connection.execute("DELETE FROM sync_walks WHERE id = $1", [walk.id]) }
    }

    public func missingParents(walkID: Int64, limit: Int) throws -> [String] {
        let rows = try connection.execute("SELECT sha FROM sync_frontier WHERE walk_id = $1 LIMIT $2", [walkID, limit])
        return (0..<rows.count).compactMap { rows.string($0, 0) }
    }

    public func pruneFrontier(walkID: Int64, repositoryID: Int64) throws -> Int {
        try write {
            try connection.execute(
                """
                DELETE FROM sync_frontier f WHERE f.walk_id = $1 AND EXISTS (
                    SELECT 1 FROM commits c JOIN repository_commits rc ON rc.commit_id = c.id AND rc.repository_id = $2
                    WHERE c.sha = f.sha AND rc.off_branch_since IS NULL)
                """, [walkID, repositoryID])
            return try frontierCount(walkID: walkID)
        }
    }

    public func frontierCount(walkID: Int64) throws -> Int {
        try connection.executePrepared("SELECT count(*) FROM sync_frontier WHERE walk_id = $1", [walkID]).int(0, 0) ?? 0
    }

    /// One page's step of a walk, in one statement: the page's parents it does not list
    /// join the frontier unless the branch holds them, what the page lists leaves it
    /// (`FrontierStep`, the page-local rule), and the walk's checkpoint moves on.
    /// Returns the frontier's size after the step.
    ///
    /// The statement's snapshot is the one before it, so its count is that size plus
    /// the rows inserted less the rows deleted. The two sets are disjoint (a parent
    /// off the page is not listed on it), and only the walk's one writer changes its
    /// frontier (a sync's claim). Four round trips a page before, one now.
    func advanceWalk(
        walkID: Int64, repositoryID: Int64, step: FrontierStep, nextURL: String?, pagesTotal: Int?, listingSHA: String?
    ) throws -> Int {
        try connection.executePrepared(
            """
            WITH added AS (
                INSERT INTO sync_frontier (walk_id, sha)
                SELECT $1, parent FROM unnest($3::text[]) AS parent
                WHERE NOT EXISTS (
                    SELECT 1 FROM commits c JOIN repository_commits rc ON rc.commit_id = c.id
                    WHERE c.sha = parent AND rc.repository_id = $2 AND rc.off_branch_since IS NULL)
                ON CONFLICT DO NOTHING
                RETURNING 1
            ),
            removed AS (
                DELETE FROM sync_frontier WHERE walk_id = $1 AND sha = ANY($4::text[]) RETURNING 1
            ),
            walked AS (
                UPDATE sync_walks SET next_url = $5, pages_done = pages_done + 1, pages_total = coalesce($6, pages_total),
                    listing_sha = $7 WHERE id = $1
            )
            SELECT (SELECT count(*) FROM sync_frontier WHERE walk_id = $1)
                + (SELECT count(*) FROM added) - (SELECT count(*) FROM removed)
            """,
            [
                walkID, repositoryID, TextArray(step.parentsOffPage.map(PageStaging.storable)),
                TextArray(step.listed.map(PageStaging.storable)), nextURL, pagesTotal, listingSHA,
            ]
        ).int(0, 0) ?? 0
    }
}
