import Foundation

/// The only deletions of stored history, whichever backend holds it: what a
/// user asks for explicitly (`commitsctl prune`, `commitsctl repos remove
/// --purge`), after a checked copy of the store (`StoreLocation.safetyCopy`).
/// A sync never calls these: nothing a server says deletes a stored commit.
public protocol HistoryRemoval: RepositoryRecords {
    /// How many of the repository's commits (every repository's when `nil`) a
    /// confirmed history rewrite left off its mirrored branches.
    func offBranchCount(repositoryID: Int64?) throws -> Int
    /// In one transaction: drops the off-branch commits of one repository (every
    /// repository's when `nil`) from it, and deletes the commits no repository
    /// holds any more. Returns how many left the repository.
    func pruneOffBranch(repositoryID: Int64?) throws -> Int
    /// In one transaction: marks the repository removed with `reason`, deletes
    /// the commits no other repository holds, drops its memberships and sync
    /// state, and keeps its row and names (its identity).
    func removeAndPurge(repositoryID: Int64, reason: String, at date: Date) throws -> PurgeOutcome
}

extension HistoryRemoval {
    public func removeAndPurge(repositoryID: Int64, reason: String) throws -> PurgeOutcome {
        try removeAndPurge(repositoryID: repositoryID, reason: reason, at: Date())
    }
}
