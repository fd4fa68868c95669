import MirrorBookkeeping
import MirrorCore
import PostgreSQL

// `commitsctl import` on PostgreSQL: the same plan (ImportPlan, Domain/), the same page path.

extension PostgreSQLStore {
    public func isMember(sha: String, repositoryID: Int64) throws -> Bool {
        try connection.execute(
            """
            SELECT 1 FROM commits c JOIN repository_commits rc ON rc.commit_id = c.id
            WHERE c.sha = $1 AND rc.repository_id = $2
            """, [sha, repositoryID]
        ).count > 0
    }

    public func importBatch(_ commits: [Commit], repositoryID: Int64) throws -> PageOutcome {
        let outcome = try write {
            try PageStaging.upsert(
                commits, repositoryID: repositoryID, replacingStored: true, statistics: &stagingStatistics, on: connection)
        }
        messageIndex.noteAdded(outcome.added)
        messageIndex.mergeIfAtLeast(MessageIndexCatchUp.duringSync, on: connection)
        return outcome
    }
}
