import Foundation
import MirrorCore

/// A store whose sync bookkeeping (the per-branch sync state, walks and their
/// frontier, branch rows and listings) is this module's one implementation,
/// written over its connection. The store supplies what truly differs: its
/// write transaction and how it keeps a branch's commits.
public protocol SQLBookkeeping: AnyObject {
    associatedtype Session: SQLSession
    /// The writer's own connection, as the shared statements use it.
    var session: Session { get }
    /// Runs `body` in the store's write transaction, or in its open batch.
    func write<T>(_ body: () throws -> T) throws -> T
    /// Brings the branch's commits to what `head` reaches (`BranchMembershipUpdate`),
    /// inside the transaction that records `head`, before `sync_state` is updated.
    func updateBranchCommits(repositoryID: Int64, branch: String, head: String?) throws
    /// Marks off-branch what none of `heads` reaches and on-branch again what one does.
    func remark(repositoryID: Int64, heads: [String], at date: Date) throws -> BranchMarks
}

// MARK: - Changed paths

extension SQLBookkeeping {
    public func commitsWithoutChanges(repositoryID: Int64) throws -> Int {
        try session.scalarInt(BookkeepingStatements.commitsWithoutChanges, [repositoryID]) ?? 0
    }
}

// MARK: - Sync state

extension SQLBookkeeping {
    public func syncState(repositoryID: Int64, branch: String) throws -> SyncState? {
        try SyncStateRows.one(repositoryID: repositoryID, branch: branch, in: session)
    }

    /// Marks the start of a sync attempt (creating the branch's row if needed).
    public func recordAttempt(repositoryID: Int64, branch: String, at date: Date) throws {
        try write {
            try session.run(
                Statements.recordAttempt, [repositoryID, branch, ISO8601Timestamp.format(date)])
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
            try session.run(
                Statements.recordSuccess,
                [
                    headSHA, headETag, complete, ISO8601Timestamp.format(date), rateLimit?.remaining,
                    rateLimit?.resetAt.map(ISO8601Timestamp.format), repositoryID, branch,
                ])
        }
    }

    public func recordFailure(repositoryID: Int64, branch: String, message: String, rateLimit: RateLimitStatus?) throws {
        try write {
            try session.run(
                Statements.recordFailure,
                [message, rateLimit?.remaining, rateLimit?.resetAt.map(ISO8601Timestamp.format), repositoryID, branch])
        }
    }

    /// Drops the sync state of a branch that was never synced (a mistyped
    /// branch name), so it does not stay behind as an incomplete branch.
    public func forgetBranchNeverSynced(repositoryID: Int64, branch: String) throws {
        try write {
            try session.run(Statements.forgetNeverSyncedState, [repositoryID, branch])
            try session.run(Statements.forgetNeverSyncedBranch, [repositoryID, branch])
        }
    }

    /// Marks the branch gone and, in the same transaction, the commits only it
    /// reached off-branch (kept, hidden from queries, as after a rewrite).
    @discardableResult
    public func markBranchGone(repositoryID: Int64, branch: String, at date: Date) throws -> Bool {
        try write {
            let marked = try session.run(Statements.markBranchGone, [ISO8601Timestamp.format(date), repositoryID, branch])
            guard marked > 0 else { return false }
            _ = try remark(
                repositoryID: repositoryID, heads: try mirroredHeads(repositoryID: repositoryID, excluding: nil), at: date)
            return true
        }
    }
}

// MARK: - Branch rows and listings

extension SQLBookkeeping {
    /// The branch's row (one per `sync_state` row), created if needed, and
    /// whether its rows describe the head `sync_state` records: not for a row
    /// just created, nor for a gone branch synced again (its rows were dropped,
    /// `returned`).
    public func branchRow(repositoryID: Int64, branch: String) throws -> (id: Int64, rowsKnown: Bool, returned: Bool) {
        if let row = try session.firstRow(Statements.branchRow, [repositoryID, branch], { ($0.int64(0) ?? 0, $0.string(1)) }) {
            guard row.1 != "active" else { return (row.0, true, false) }
            try session.run(Statements.reactivateBranch, [row.0])
            return (row.0, false, true)
        }
        let id = try session.firstRow(Statements.insertBranch, [repositoryID, branch]) { $0.int64(0) } ?? nil
        return (id ?? 0, false, false)
    }

    /// Gives a branch about to be synced its row (one per `sync_state` row), leaving an existing one as it is.
    public func ensureBranch(repositoryID: Int64, branch: String) throws {
        try session.run(Statements.ensureBranch, [repositoryID, branch])
    }

    public func branchListing(repositoryID: Int64) throws -> BranchListing? {
        try session.firstRow(Statements.branchListing, [repositoryID]) { $0.string(0) }?
            .flatMap(BranchListing.init(storedPages:))
    }

    public func recordBranchListing(_ listing: BranchListing, repositoryID: Int64, at date: Date) throws {
        try write {
            try session.run(
                Statements.recordBranchListing, [repositoryID, listing.storedPages, ISO8601Timestamp.format(date)])
        }
    }
}

extension SQLBookkeeping {
    typealias Statements = BookkeepingStatements
}

/// The bookkeeping's statements, each written once for both dialects.
enum BookkeepingStatements {
    static let commitsWithoutChanges = PortableSQL(
        """
        SELECT count(*) FROM repository_commits rc WHERE rc.repository_id = ?
        AND NOT EXISTS (SELECT 1 FROM commit_changes_read r WHERE r.commit_id = rc.commit_id)
        """)
    static let recordAttempt = PortableSQL(
        """
        INSERT INTO sync_state (repository_id, branch, last_attempt_at) VALUES (?, ?, ?)
        ON CONFLICT (repository_id, branch) DO UPDATE SET last_attempt_at = excluded.last_attempt_at
        """)
    static let recordSuccess = PortableSQL(
        """
        UPDATE sync_state SET head_sha = ?, head_etag = ?, complete = ?, last_success_at = ?, last_error = NULL,
            rate_limit_remaining = coalesce(?, rate_limit_remaining), rate_limit_reset_at = coalesce(?, rate_limit_reset_at)
        WHERE repository_id = ? AND branch = ?
        """)
    static let recordFailure = PortableSQL(
        """
        UPDATE sync_state SET last_error = ?,
            rate_limit_remaining = coalesce(?, rate_limit_remaining), rate_limit_reset_at = coalesce(?, rate_limit_reset_at)
        WHERE repository_id = ? AND branch = ?
        """)
    static let forgetNeverSyncedState = PortableSQL(
        """
        DELETE FROM sync_state WHERE repository_id = ?1 AND branch = ?2 AND head_sha IS NULL AND last_success_at IS NULL
            AND NOT EXISTS (SELECT 1 FROM sync_walks w WHERE w.repository_id = ?1 AND w.branch = ?2)
        """)
    static let forgetNeverSyncedBranch = PortableSQL(
        """
        DELETE FROM repository_branches WHERE repository_id = ?1 AND name = ?2
            AND NOT EXISTS (SELECT 1 FROM sync_state s WHERE s.repository_id = ?1 AND s.branch = ?2)
        """)
    static let markBranchGone = PortableSQL(
        "UPDATE repository_branches SET state = 'gone', gone_since = ? WHERE repository_id = ? AND name = ? AND state = 'active'"
    )
    static let branchRow = PortableSQL("SELECT id, state FROM repository_branches WHERE repository_id = ? AND name = ?")
    static let reactivateBranch = PortableSQL(
        "UPDATE repository_branches SET state = 'active', gone_since = NULL WHERE id = ?")
    static let insertBranch = PortableSQL("INSERT INTO repository_branches (repository_id, name) VALUES (?, ?) RETURNING id")
    static let ensureBranch = PortableSQL(
        "INSERT INTO repository_branches (repository_id, name) VALUES (?, ?) ON CONFLICT (repository_id, name) DO NOTHING")
    static let branchListing = PortableSQL("SELECT pages FROM branch_listings WHERE repository_id = ?")
    static let recordBranchListing = PortableSQL(
        """
        INSERT INTO branch_listings (repository_id, pages, listed_at) VALUES (?, ?, ?)
        ON CONFLICT (repository_id) DO UPDATE SET pages = excluded.pages, listed_at = excluded.listed_at
        """)
}
