import MirrorCore
import SQLite

/// Reads the reader and the writer both make, written once: each type offers
/// the ones its users need.
enum StoreLookups {
    static func repository(named name: RepositoryName, in db: Connection) throws -> StoredRepository? {
        try db.cachedStatement(
            """
            SELECT \(MirrorStore.repositoryColumns) FROM repository_names n JOIN repositories r ON r.id = n.repository_id
            WHERE n.name = ?
            """
        ).bind([name.description]).first(MirrorStore.repository(from:))
    }

    static func ownerListing(owner: String, in db: Connection) throws -> OwnerListing? {
        try db.prepare("SELECT pages, kind FROM owner_listings WHERE owner = ?").bind([owner])
            .first({ (pages: $0.string(0), kind: $0.string(1)) })
            .flatMap { OwnerListing(owner: owner, storedKind: $0.kind, storedPages: $0.pages) }
    }

    static func activeRepositories(ownedBy owner: String, in db: Connection) throws -> [StoredRepository] {
        try db.prepare(
            """
            SELECT \(MirrorStore.repositoryColumns) FROM repositories r
            WHERE r.state = 'active' AND lower(substr(r.full_name, 1, length(?1) + 1)) = lower(?1 || '/')
            ORDER BY r.full_name
            """
        ).bind([owner]).map(MirrorStore.repository(from:))
    }

    static func commitCount(repositoryID: Int64?, in db: Connection) throws -> Int {
        if let repositoryID {
            return try db.scalarInt("SELECT count(*) FROM repository_commits WHERE repository_id = ?", [repositoryID]) ?? 0
        }
        return try db.scalarInt("SELECT count(*) FROM commits") ?? 0
    }

    static func syncState(repositoryID: Int64, branch: String, in db: Connection) throws -> SyncState? {
        try db.prepare(syncStateQuery + " WHERE s.repository_id = ? AND s.branch = ?")
            .bind([repositoryID, branch]).first(syncState(from:))
    }

    static func syncStates(repositoryID: Int64? = nil, in db: Connection) throws -> [SyncState] {
        guard let repositoryID else {
            return try db.prepare(syncStateQuery + " ORDER BY r.full_name, s.branch").map(syncState(from:))
        }
        return try db.prepare(syncStateQuery + " WHERE s.repository_id = ? ORDER BY s.branch").bind([repositoryID])
            .map(syncState(from:))
    }

    private static let syncStateQuery = """
        SELECT r.full_name, s.branch, s.head_sha, s.head_etag, s.complete, s.last_attempt_at, s.last_success_at,
               s.last_error, s.rate_limit_remaining, s.rate_limit_reset_at,
               (SELECT count(*) FROM sync_walks w WHERE w.repository_id = s.repository_id AND w.branch = s.branch),
               (SELECT count(*) FROM repository_commits rc WHERE rc.repository_id = s.repository_id),
               r.state, r.state_reason, CASE WHEN b.state = 'gone' THEN coalesce(b.gone_since, '') END
        FROM sync_state s JOIN repositories r ON r.id = s.repository_id
        LEFT JOIN repository_branches b ON b.repository_id = s.repository_id AND b.name = s.branch
        """

    private static func syncState(from row: Statement) -> SyncState {
        SyncState(
            repository: row.string(0), branch: row.string(1), headSHA: row.optionalString(2),
            headETag: row.optionalString(3), complete: row.int(4) != 0, lastAttemptAt: row.optionalString(5),
            lastSuccessAt: row.optionalString(6), lastError: row.optionalString(7),
            rateLimitRemaining: row.optionalInt(8), rateLimitResetAt: row.optionalString(9),
            pendingWalks: row.int(10), commits: row.int(11),
            repositoryState: RepositoryState(rawValue: row.string(12)) ?? .active, stateReason: row.optionalString(13),
            branchGoneSince: row.optionalString(14))
    }
}
