import Foundation
import MirrorCore
import SQLite

// The sync engine's bookkeeping in a SQLite store (walks, their frontier and
// checkpoints, the per-branch sync state): used by `SyncEngine` only, through
// `SyncStore`. The values (`Walk`, `SyncState`) are MirrorCore's.

extension MirrorStore {
    // MARK: - Sync state

    public func syncState(repositoryID: Int64, branch: String) throws -> SyncState? {
        try StoreLookups.syncState(repositoryID: repositoryID, branch: branch, in: db)
    }

    /// Marks the start of a sync attempt (creating the branch's row if needed).
    public func recordAttempt(repositoryID: Int64, branch: String, at date: Date) throws {
        try write {
            try db.execute(
                """
                INSERT INTO sync_state (repository_id, branch, last_attempt_at) VALUES (?, ?, ?)
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
            try db.execute(
                """
                UPDATE sync_state SET head_sha = ?, head_etag = ?, complete = ?, last_success_at = ?, last_error = NULL,
                    rate_limit_remaining = coalesce(?, rate_limit_remaining), rate_limit_reset_at = coalesce(?, rate_limit_reset_at)
                WHERE repository_id = ? AND branch = ?
                """,
                [
                    headSHA, headETag, complete, ISO8601Timestamp.format(date), rateLimit?.remaining,
                    rateLimit?.resetAt.map(ISO8601Timestamp.format), repositoryID, branch,
                ])
        }
    }

    public func recordFailure(repositoryID: Int64, branch: String, message: String, rateLimit: RateLimitStatus?) throws {
        try write {
            try db.execute(
                """
                UPDATE sync_state SET last_error = ?,
                    rate_limit_remaining = coalesce(?, rate_limit_remaining), rate_limit_reset_at = coalesce(?, rate_limit_reset_at)
                WHERE repository_id = ? AND branch = ?
                """, [message, rateLimit?.remaining, rateLimit?.resetAt.map(ISO8601Timestamp.format), repositoryID, branch])
        }
    }

    /// Drops the sync state of a branch that was never synced (a mistyped
    /// branch name), so it does not stay behind as an incomplete branch.
    public func forgetBranchNeverSynced(repositoryID: Int64, branch: String) throws {
        try write {
            try db.execute(
                """
                DELETE FROM sync_state WHERE repository_id = ?1 AND branch = ?2 AND head_sha IS NULL AND last_success_at IS NULL
                    AND NOT EXISTS (SELECT 1 FROM sync_walks w WHERE w.repository_id = ?1 AND w.branch = ?2)
                """, [repositoryID, branch])
            try db.execute(
                """
                DELETE FROM repository_branches WHERE repository_id = ?1 AND name = ?2
                    AND NOT EXISTS (SELECT 1 FROM sync_state s WHERE s.repository_id = ?1 AND s.branch = ?2)
                """, [repositoryID, branch])
        }
    }

    /// Marks the branch gone and, in the same transaction, the commits only it
    /// reached off-branch (kept, hidden from queries, as after a rewrite).
    @discardableResult
    public func markBranchGone(repositoryID: Int64, branch: String, at date: Date) throws -> Bool {
        try write {
            try db.execute(
                "UPDATE repository_branches SET state = 'gone', gone_since = ? WHERE repository_id = ? AND name = ? AND state = 'active'",
                [ISO8601Timestamp.format(date), repositoryID, branch])
            guard db.changes > 0 else { return false }
            _ = try remark(repositoryID: repositoryID, heads: try mirroredHeads(repositoryID: repositoryID), at: date)
            return true
        }
    }

    // MARK: - Walks

    /// Unfinished walks for the branch, newest first (the order they resume in).
    public func pendingWalks(repositoryID: Int64, branch: String) throws -> [Walk] {
        try db.prepare(
            """
            SELECT id, head_sha, next_url, pages_done, pages_total, listing_sha FROM sync_walks
            WHERE repository_id = ? AND branch = ? ORDER BY id DESC
            """
        ).bind([repositoryID, branch]).map {
            Walk(
                id: $0.int64(0), headSHA: $0.string(1), nextURL: $0.optionalString(2),
                pagesDone: $0.int(3), pagesTotal: $0.optionalInt(4), listingSHA: $0.optionalString(5))
        }
    }

    public func beginWalk(repositoryID: Int64, branch: String, headSHA: String) throws -> Walk {
        try write {
            try db.execute(
                "INSERT INTO sync_walks (repository_id, branch, head_sha) VALUES (?, ?, ?)",
                [repositoryID, branch, headSHA])
            return Walk(id: db.lastInsertRowID, headSHA: headSHA, nextURL: nil, pagesDone: 0, pagesTotal: nil)
        }
    }

    /// Ends a walk whose frontier is empty: its history is whole.
    public func finishWalk(_ walk: Walk) throws {
        try write {
            try db.execute("DELETE FROM sync_walks WHERE id = ?", [walk.id])
        }
    }

    public func hasPendingWalks(repositoryID: Int64, otherThan branch: String) throws -> Bool {
        try db.prepare("SELECT 1 FROM sync_walks WHERE repository_id = ? AND branch != ? LIMIT 1")
            .bind([repositoryID, branch]).first { _ in true } ?? false
    }

    /// Parents the walk still misses (a bounded sample).
    public func missingParents(walkID: Int64, limit: Int) throws -> [String] {
        try db.prepare("SELECT sha FROM sync_frontier WHERE walk_id = ? LIMIT ?").bind([walkID, limit]).map { $0.string(0) }
    }

    /// A walk that repairs a branch left incomplete with no walk to finish it
    /// (stores written before walks re-listed missing parents): its frontier is
    /// every parent the repository's commits reference but it does not hold.
    public func beginRepairWalk(repositoryID: Int64, branch: String, headSHA: String) throws -> Walk {
        try write {
            try db.execute(
                "INSERT INTO sync_walks (repository_id, branch, head_sha) VALUES (?, ?, ?)",
                [repositoryID, branch, headSHA])
            let walkID = db.lastInsertRowID
            try db.execute(
                """
                INSERT OR IGNORE INTO sync_frontier (walk_id, sha)
                SELECT DISTINCT ?1, cp.parent_sha FROM repository_commits rc
                JOIN commit_parents cp ON cp.commit_id = rc.commit_id
                WHERE rc.repository_id = ?2 AND rc.off_branch_since IS NULL AND NOT EXISTS (
                    SELECT 1 FROM commits p JOIN repository_commits prc ON prc.commit_id = p.id AND prc.repository_id = ?2
                    WHERE p.sha = cp.parent_sha AND prc.off_branch_since IS NULL)
                """, [walkID, repositoryID])
            return Walk(id: walkID, headSHA: headSHA, nextURL: nil, pagesDone: 0, pagesTotal: nil)
        }
    }

    /// Drops the walk's missing parents that other walks have stored since;
    /// returns how many are still missing.
    public func pruneFrontier(walkID: Int64, repositoryID: Int64) throws -> Int {
        try write {
            try db.execute(
                """
                DELETE FROM sync_frontier WHERE walk_id = ?1 AND EXISTS (
                    SELECT 1 FROM commits c JOIN repository_commits rc ON rc.commit_id = c.id AND rc.repository_id = ?2
                    WHERE c.sha = sync_frontier.sha AND rc.off_branch_since IS NULL)
                """, [walkID, repositoryID])
            return try frontierCount(walkID: walkID)
        }
    }

    public func frontierCount(walkID: Int64) throws -> Int {
        try db.cachedStatement("SELECT count(*) FROM sync_frontier WHERE walk_id = ?").bind([walkID]).first { $0.int(0) } ?? 0
    }

    /// After a page is upserted: the step's parents that this repository does
    /// not hold on the branch join the walk's frontier; the page's own commits leave it.
    func updateFrontier(walkID: Int64, repositoryID: Int64, step: FrontierStep) throws {
        // A commit kept off the branch may lack its parents (a walk dropped when
        // its head left the branch): a walk goes on through it, never stops at it.
        let isMember = try db.cachedStatement(
            """
            SELECT 1 FROM commits c JOIN repository_commits rc ON rc.commit_id = c.id
            WHERE c.sha = ? AND rc.repository_id = ? AND rc.off_branch_since IS NULL
            """)
        let addMissing = try db.cachedStatement("INSERT OR IGNORE INTO sync_frontier (walk_id, sha) VALUES (?, ?)")
        for sha in step.parentsOffPage {
            guard try isMember.bind([sha, repositoryID]).first({ _ in true }) == nil else { continue }
            try addMissing.bind([walkID, sha]).run()
        }
        let remove = try db.cachedStatement("DELETE FROM sync_frontier WHERE walk_id = ? AND sha = ?")
        for sha in step.listed {
            try remove.bind([walkID, sha]).run()
        }
    }
}
