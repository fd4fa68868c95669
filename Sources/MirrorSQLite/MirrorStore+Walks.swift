import Foundation
import MirrorBookkeeping
import MirrorCore
import SQLite

// A page's step of its walk in a SQLite store, on the page write path; the rest
// of the sync engine's bookkeeping is MirrorBookkeeping's (`SQLBookkeeping`).

extension MirrorStore {
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

    /// The walk's frontier after a page, counted through the wrapper directly:
    /// the page write path binds its values without the shared seam.
    func pageFrontierCount(walkID: Int64) throws -> Int {
        try db.cachedStatement(WalkStatements.frontierCount.sqlite).bind([walkID]).first { $0.int(0) } ?? 0
    }
}
