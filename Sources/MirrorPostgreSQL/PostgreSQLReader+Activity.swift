import Foundation
import MirrorBookkeeping
import MirrorCore
import PostgreSQL

/// How recently each mirrored branch moved, for commitsd's adaptive polling
/// (`PollingPolicy`): the same answers as `MirrorReader`'s.
extension PostgreSQLReader {
    public func branchHeads() throws -> [BranchHead] {
        try read {
            let rows = try connection.execute(
                """
                SELECT r.full_name, s.branch, s.head_sha, c.committer_date
                FROM sync_state s JOIN repositories r ON r.id = s.repository_id
                LEFT JOIN commits c ON c.sha = s.head_sha
                WHERE r.state = 'active'
                """)
            return (0..<rows.count).map { row in
                BranchHead(
                    repository: rows.string(row, 0) ?? "", branch: rows.string(row, 1) ?? "", head: rows.string(row, 2),
                    committedAt: rows.string(row, 3).flatMap(ISO8601Timestamp.parse))
            }
        }
    }

    /// The queue's held claims; none before schema version 4 made the queue.
    public func heldClaims() throws -> [SyncLease] {
        try read {
            guard try connection.execute("SELECT to_regclass('sync_leases') IS NOT NULL").bool(0, 0) == true else { return [] }
            return PostgreSQLSyncLeases.leases(try connection.execute(PostgreSQLSyncLeases.held))
        }
    }

    /// The queue's repositories; none before schema version 4 made the queue.
    public func queuedRepositories() throws -> [RepositoryName] {
        try read {
            guard try connection.execute("SELECT to_regclass('sync_leases') IS NOT NULL").bool(0, 0) == true else { return [] }
            let rows = try connection.execute(
                "SELECT min(repository) FROM sync_leases GROUP BY lower(repository) ORDER BY lower(repository)")
            return (0..<rows.count).compactMap { rows.string($0, 0).flatMap(RepositoryName.init(parsing:)) }
        }
    }

    public func committerDate(ofCommit sha: String) throws -> Date? {
        try read {
            let rows = try connection.execute("SELECT committer_date FROM commits WHERE sha = $1::text", [sha])
            return rows.count > 0 ? rows.string(0, 0).flatMap(ISO8601Timestamp.parse) : nil
        }
    }
}
