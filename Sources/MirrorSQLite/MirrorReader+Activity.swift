import Foundation
import MirrorBookkeeping
import MirrorCore
import SQLite

/// How recently each mirrored branch moved, for adaptive polling (`PollingPolicy`).
extension MirrorReader {
    /// Every branch of a repository still mirrored (not gone or removed), with its head and when that was committed.
    public func branchHeads() throws -> [BranchHead] {
        try db.prepare(
            """
            SELECT r.full_name, s.branch, s.head_sha, c.committer_date
            FROM sync_state s JOIN repositories r ON r.id = s.repository_id
            LEFT JOIN commits c ON c.sha = s.head_sha
            WHERE r.state = 'active'
            """
        ).map { row in
            BranchHead(
                repository: row.string(0), branch: row.string(1), head: row.optionalString(2),
                committedAt: row.optionalString(3).flatMap(ISO8601Timestamp.parse))
        }
    }

    /// The committer date of a stored commit.
    public func committerDate(ofCommit sha: String) throws -> Date? {
        try db.prepare("SELECT committer_date FROM commits WHERE sha = ?").bind([sha])
            .map { $0.string(0) }.first.flatMap(ISO8601Timestamp.parse)
    }
}
