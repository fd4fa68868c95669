import MirrorCore
import PostgreSQL

// `commitsctl import` on PostgreSQL: the same plan (ImportPlan, Domain/), the same page path.

extension PostgreSQLStore {
    public func ensureRepository(named name: RepositoryName) throws -> StoredRepository {
        if let existing = try repository(named: name) { return existing }
        return try write {
            let id =
                try connection.execute("INSERT INTO repositories (full_name) VALUES ($1) RETURNING id", [name.description])
                .int64(0, 0) ?? 0
            try connection.execute(
                "INSERT INTO repository_names (name, repository_id) VALUES ($1, $2) ON CONFLICT ((lower(name))) DO NOTHING",
                [name.description, id])
            return StoredRepository(id: id, name: name, githubID: nil, defaultBranch: nil)
        }
    }

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
