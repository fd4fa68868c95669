import Foundation
import MirrorBookkeeping
import MirrorCore
import SQLite

/// The explicit purge of a repository (its state and the rest of its records: MirrorBookkeeping).
extension MirrorStore {
    /// The explicit purge (`HistoryRemoval`; the user's command, after a backup).
    public func removeAndPurge(repositoryID: Int64, reason: String, at date: Date) throws -> PurgeOutcome {
        try write {
            try updateState(.removed, repositoryID: repositoryID, reason: reason, at: date)
            let held = try db.scalarInt("SELECT count(*) FROM repository_commits WHERE repository_id = ?", [repositoryID]) ?? 0
            try db.execute(
                """
                DELETE FROM commits WHERE id IN (SELECT commit_id FROM repository_commits WHERE repository_id = ?1)
                AND NOT EXISTS (SELECT 1 FROM repository_commits o WHERE o.commit_id = commits.id AND o.repository_id != ?1)
                """, [repositoryID])
            let deleted = db.changes
            // A shared commit is off-branch when it is so in every repository still holding it.
            try db.execute(
                """
                UPDATE commits SET off_branch = NOT EXISTS (
                    SELECT 1 FROM repository_commits rc
                    WHERE rc.commit_id = commits.id AND rc.repository_id != ?1 AND rc.off_branch_since IS NULL)
                WHERE id IN (SELECT commit_id FROM repository_commits WHERE repository_id = ?1)
                """, [repositoryID])
            try db.execute("DELETE FROM repository_commits WHERE repository_id = ?", [repositoryID])
            // Its history is gone, so what the sync state says about it no longer holds.
            try db.execute("DELETE FROM sync_state WHERE repository_id = ?", [repositoryID])
            try db.execute("DELETE FROM repository_branches WHERE repository_id = ?", [repositoryID])
            return PurgeOutcome(held: held, deleted: deleted)
        }
    }
}
