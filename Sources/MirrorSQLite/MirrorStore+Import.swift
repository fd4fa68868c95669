import Foundation
import MirrorBookkeeping
import MirrorCore
import SQLite

/// Seeding a repository from saved API responses (an import).
///
/// The sync engine stops a walk as soon as every parent of what it fetched is
/// stored, which is exact only if every stored commit's history is stored too
/// (or still owed by an unfinished walk). Imported commits carry no such
/// promise, so an import attaches to the repository only commits whose whole
/// history is present — in the import or already mirrored — and stores them
/// parents first, so even an interrupted import leaves a closed history. It
/// never touches sync state: nothing is marked complete, and the next sync
/// proves completeness the usual way (cheaply: its walk stops at the first
/// page whose parents are all stored).
extension MirrorStore {
    /// Whether the repository holds `sha` already (`ImportPlan`'s one question).
    public func isMember(sha: String, repositoryID: Int64) throws -> Bool {
        try db.cachedStatement(
            """
            SELECT 1 FROM commits c JOIN repository_commits rc ON rc.commit_id = c.id
            WHERE c.sha = ? AND rc.repository_id = ?
            """
        ).bind([sha, repositoryID]).first({ _ in true }) != nil
    }

    public func importBatch(_ commits: [Commit], repositoryID: Int64) throws -> PageOutcome {
        let outcome = try write { try upsert(commits, repositoryID: repositoryID) }
        try catchUpMessageIndexAfterLoneWrite()
        return outcome
    }
}
