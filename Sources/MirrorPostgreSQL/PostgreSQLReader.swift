import Foundation
import MirrorBookkeeping
import MirrorCore
import PostgreSQL

/// The PostgreSQL store's reader (`MirrorReading`): what `query`, `status` and
/// `repos` ask, answered with the same domain values as `MirrorReader`, so the
/// commands print the same bytes from either store.
///
/// One connection per reader. Everything one answer needs is read in one
/// read-only REPEATABLE READ transaction: a query and its lookups see one
/// snapshot while syncs commit. Text is ordered and compared with COLLATE "C"
/// wherever SQLite compares bytes (or ASCII-folded bytes for its NOCASE
/// columns), so no answer depends on the database's locale.
/// Not `Sendable`: one thread at a time, like the connection.
public final class PostgreSQLReader: MirrorReading {
    public let location: StoreLocation
    let connection: PostgreSQLConnection
    let uri: String

    init(uri: String, password: String?) throws {
        self.uri = uri
        location = .postgreSQL(uri)
        do {
            // No idle bound: a reader's snapshot may wait on the terminal (a pager) between rows, and
            // holds no lock a writer waits for.
            connection = try StoreSession.connect(
                uri: uri, password: password, applicationName: "commits-mirror reader", idleInTransaction: nil)
            // Readers never create or upgrade a schema: a database without one holds no store.
            try PostgreSQLMigrator.verify(connection, location: uri)
        } catch let error as PostgreSQLError {
            throw PostgreSQLStoreError(error, uri: uri)
        }
    }

    /// Runs `body` in one read-only snapshot (or in the one already open), a
    /// server error becoming the store's one-line error.
    func read<T>(_ body: () throws -> T) throws -> T {
        do {
            if connection.isInTransaction { return try body() }
            return try connection.transaction(.readOnlySnapshot, body)
        } catch let error as PostgreSQLError {
            throw PostgreSQLStoreError(error, uri: uri)
        }
    }

    public func repository(named name: RepositoryName) throws -> StoredRepository? {
        try read { try RepositoryRows.repository(named: name, in: connection) }
    }

    public func ownerListing(owner: String) throws -> OwnerListing? {
        try read { try RepositoryRows.ownerListing(owner: owner, in: connection) }
    }

    public func activeRepositories(ownedBy owner: String) throws -> [StoredRepository] {
        try read { try RepositoryRows.activeRepositories(ownedBy: owner, in: connection) }
    }

    public func repositories() throws -> [StoredRepository] {
        try read { try RepositoryRows.repositories(in: connection) }
    }

    public func commitCount(repositoryID: Int64?) throws -> Int {
        try read { try RepositoryRows.commitCount(repositoryID: repositoryID, in: connection) }
    }

    public func syncStates(repositoryID: Int64?) throws -> [SyncState] {
        try read { try SyncStateRows.all(repositoryID: repositoryID, on: connection) }
    }

    public func repositoryOverviews() throws -> [RepositoryOverview] {
        try read {
            let rows = try connection.execute(
                """
                SELECT r.id, r.full_name, r.github_id, r.default_branch, r.state, r.state_reason, r.state_changed_at,
                       (SELECT count(*) FROM repository_commits rc WHERE rc.repository_id = r.id),
                       (SELECT string_agg(s.branch, ',' ORDER BY s.branch COLLATE "C") FROM sync_state s WHERE s.repository_id = r.id),
                       (SELECT max(s.last_success_at COLLATE "C") FROM sync_state s WHERE s.repository_id = r.id),
                       (SELECT count(*) > 0 AND coalesce(bool_and(s.complete), false) FROM sync_state s WHERE s.repository_id = r.id)
                FROM repositories r ORDER BY lower(r.full_name COLLATE "C")
                """)
            return try (0..<rows.count).map { row in
                let branches = rows.string(row, 8).map { $0.split(separator: ",").map(String.init) } ?? []
                return RepositoryOverview(
                    name: rows.string(row, 1) ?? "", formerNames: try formerNames(of: rows.int64(row, 0) ?? 0),
                    githubID: rows.int(row, 2),
                    branches: branches.isEmpty ? (rows.string(row, 3).map { [$0] } ?? []) : branches,
                    commits: rows.int(row, 7) ?? 0, state: rows.string(row, 4).flatMap(RepositoryState.init(rawValue:)) ?? .active,
                    stateReason: rows.string(row, 5), stateChangedAt: rows.string(row, 6),
                    lastSuccessAt: rows.string(row, 9), complete: rows.bool(row, 10) ?? false)
            }
        }
    }

    /// The names the repository was known by besides its current one (SQLite's
    /// NOCASE: a name differing from the current one only in ASCII case is the same).
    public func formerNames(of repositoryID: Int64) throws -> [String] {
        try read {
            let rows = try connection.execute(
                """
                SELECT n.name FROM repository_names n JOIN repositories r ON r.id = n.repository_id
                WHERE n.repository_id = $1::bigint AND lower(n.name COLLATE "C") <> lower(r.full_name COLLATE "C")
                ORDER BY lower(n.name COLLATE "C")
                """, [repositoryID])
            return (0..<rows.count).compactMap { rows.string($0, 0) }
        }
    }

    public func spentRequests(inHourBefore now: Date) throws -> [SpentRequests] {
        let since = ISO8601Timestamp.format(
            Date(timeIntervalSince1970: (now.timeIntervalSince1970 / 60).rounded(.down) * 60 - 59 * 60))
        return try read {
            let rows = try connection.execute(
                """
                SELECT token, kind, sum(requests), sum(not_modified), sum(points) FROM request_counts
                WHERE minute COLLATE "C" >= $1::text GROUP BY token, kind
                """, [since])
            return (0..<rows.count).compactMap { row -> SpentRequests? in
                // Kinds this version does not know are left out, as from a SQLite store.
                guard let kind = rows.string(row, 1).flatMap(RequestKind.init(rawValue:)) else { return nil }
                return SpentRequests(
                    token: rows.string(row, 0) ?? "", kind: kind,
                    tally: RequestTally(
                        requests: rows.int(row, 2) ?? 0, notModified: rows.int(row, 3) ?? 0, points: rows.int(row, 4) ?? 0))
            }.sorted { ($0.token, $0.kind) < ($1.token, $1.kind) }
        }
    }

    public func latestChange() throws -> Int64 {
        try read { try connection.execute("SELECT last FROM change_counter").int64(0, 0) ?? 0 }
    }
}

@available(*, unavailable)
extension PostgreSQLReader: Sendable {}
