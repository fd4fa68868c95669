import Foundation
import MirrorBookkeeping
import MirrorCore
import PostgreSQL

// A page's step of its walk, on the page write path; the rest of the sync
// engine's bookkeeping is MirrorBookkeeping's (`SQLBookkeeping`).

extension PostgreSQLStore {
    public func syncStates(repositoryID: Int64? = nil) throws -> [SyncState] {
        try SyncStateRows.all(repositoryID: repositoryID, on: connection)
    }

    /// One page's step of a walk, in one statement: the page's parents it does not list
    /// join the frontier unless the branch holds them, what the page lists leaves it
    /// (`FrontierStep`, the page-local rule), and the walk's checkpoint moves on.
    /// Returns the frontier's size after the step.
    ///
    /// The statement's snapshot is the one before it, so its count is that size plus
    /// the rows inserted less the rows deleted. The two sets are disjoint (a parent
    /// off the page is not listed on it), and only the walk's one writer changes its
    /// frontier (a sync's claim). Four round trips a page before, one now.
    func advanceWalk(
        walkID: Int64, repositoryID: Int64, step: FrontierStep, nextURL: String?, pagesTotal: Int?, listingSHA: String?
    ) throws -> Int {
        try connection.executePrepared(
            """
            WITH added AS (
                INSERT INTO sync_frontier (walk_id, sha)
                SELECT $1, parent FROM unnest($3::text[]) AS parent
                WHERE NOT EXISTS (
                    SELECT 1 FROM commits c JOIN repository_commits rc ON rc.commit_id = c.id
                    WHERE c.sha = parent AND rc.repository_id = $2 AND rc.off_branch_since IS NULL)
                ON CONFLICT DO NOTHING
                RETURNING 1
            ),
            removed AS (
                DELETE FROM sync_frontier WHERE walk_id = $1 AND sha = ANY($4::text[]) RETURNING 1
            ),
            walked AS (
                UPDATE sync_walks SET next_url = $5, pages_done = pages_done + 1, pages_total = coalesce($6, pages_total),
                    listing_sha = $7 WHERE id = $1
            )
            SELECT (SELECT count(*) FROM sync_frontier WHERE walk_id = $1)
                + (SELECT count(*) FROM added) - (SELECT count(*) FROM removed)
            """,
            [
                walkID, repositoryID, TextArray(step.parentsOffPage.map(PageStaging.storable)),
                TextArray(step.listed.map(PageStaging.storable)), nextURL, pagesTotal, listingSHA,
            ]
        ).int(0, 0) ?? 0
    }
}
