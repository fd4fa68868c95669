/// What `commitsctl import` needs of a store: saved API responses become a
/// repository's history offline, parents first (`ImportPlan`).
public protocol CommitImporting: RepositoryRecords {
    /// The repository under `name`, made (without a GitHub id yet) if the store has none.
    func ensureRepository(named name: RepositoryName) throws -> StoredRepository
    /// Whether the repository holds `sha` already.
    func isMember(sha: String, repositoryID: Int64) throws -> Bool
    /// Stores `commits` (parents before children) in one transaction.
    func importBatch(_ commits: [Commit], repositoryID: Int64) throws -> PageOutcome
}

extension CommitImporting {
    /// The import's order and what it leaves out, asking the store only about parents outside the input.
    public func planImport(_ commits: [Commit], repositoryID: Int64) throws -> ImportPlan {
        try ImportPlan(commits) { try isMember(sha: $0, repositoryID: repositoryID) }
    }
}
