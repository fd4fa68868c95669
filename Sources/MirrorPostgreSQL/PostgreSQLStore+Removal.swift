import Foundation
import MirrorBookkeeping
import MirrorCore
import PostgreSQL

// The explicit removals (`HistoryRemoval`): what only a user's prune or purge
// deletes, each in one transaction, with the SQLite store's meaning
// (MirrorStore+History.swift, MirrorStore+Discovery.swift).
//
// Each first locks the page tables against writers (SHARE ROW EXCLUSIVE waits
// for the pages in flight and holds off new ones until it commits): a page reads
// which commits are stored and then writes rows naming them, and the page tables
// have no foreign keys to catch a commit deleted in between
// (PostgreSQLSchema+BulkPages.swift). Readers are never blocked.

extension PostgreSQLStore {
    public func offBranchCount(repositoryID: Int64?) throws -> Int {
        if let repositoryID {
            return try connection.execute(
                "SELECT count(*) FROM repository_commits WHERE repository_id = $1 AND off_branch_since IS NOT NULL",
                [repositoryID]
            ).int(0, 0) ?? 0
        }
        return try connection.execute("SELECT count(*) FROM repository_commits WHERE off_branch_since IS NOT NULL")
            .int(0, 0) ?? 0
    }

    public func pruneOffBranch(repositoryID: Int64?) throws -> Int {
        try write {
            try lockPageTables()
            let removed: Int
            if let repositoryID {
                removed =
                    try connection.execute(
                        "DELETE FROM repository_commits WHERE repository_id = $1 AND off_branch_since IS NOT NULL",
                        [repositoryID]
                    ).affectedRows
            } else {
                removed = try connection.execute("DELETE FROM repository_commits WHERE off_branch_since IS NOT NULL")
                    .affectedRows
            }
            // Only a commit off every branch may go, and only once no repository holds it.
            try connection.execute(
                """
                DELETE FROM commits c WHERE c.off_branch
                AND NOT EXISTS (SELECT 1 FROM repository_commits rc WHERE rc.commit_id = c.id)
                """)
            return removed
        }
    }

    public func removeAndPurge(repositoryID: Int64, reason: String, at date: Date) throws -> PurgeOutcome {
        try write {
            try lockPageTables()
            try updateState(.removed, repositoryID: repositoryID, reason: reason, at: date)
            let held =
                try connection.execute("SELECT count(*) FROM repository_commits WHERE repository_id = $1", [repositoryID])
                .int(0, 0) ?? 0
            let deleted =
                try connection.execute(
                    """
                    DELETE FROM commits c WHERE c.id IN (SELECT commit_id FROM repository_commits WHERE repository_id = $1)
                    AND NOT EXISTS (
                        SELECT 1 FROM repository_commits o WHERE o.commit_id = c.id AND o.repository_id <> $1)
                    """, [repositoryID]
                ).affectedRows
            // A shared commit is off-branch when it is so in every repository still holding it.
            try connection.execute(
                """
                UPDATE commits c SET off_branch = NOT EXISTS (
                    SELECT 1 FROM repository_commits rc
                    WHERE rc.commit_id = c.id AND rc.repository_id <> $1 AND rc.off_branch_since IS NULL)
                WHERE c.id IN (SELECT commit_id FROM repository_commits WHERE repository_id = $1)
                """, [repositoryID])
            try connection.execute("DELETE FROM repository_commits WHERE repository_id = $1", [repositoryID])
            // Its history is gone, so what the sync state says about it no longer holds.
            try connection.execute("DELETE FROM sync_state WHERE repository_id = $1", [repositoryID])
            try connection.execute("DELETE FROM repository_branches WHERE repository_id = $1", [repositoryID])
            return PurgeOutcome(held: held, deleted: deleted)
        }
    }

    private func lockPageTables() throws {
        try connection.execute("LOCK TABLE commits, repository_commits, branch_commits, commit_changes_read IN SHARE ROW EXCLUSIVE MODE")
    }
}
