import MirrorBookkeeping
import MirrorCore
import PostgreSQL

// Tags and revision names on a PostgreSQL store: the shared reads (TagRows), each in one read snapshot.

extension PostgreSQLReader {
    public func tags(repositoryID: Int64?, includingEnded: Bool) throws -> [StoredTag] {
        try read { try TagRows.tags(repositoryID: repositoryID, includingEnded: includingEnded, in: connection) }
    }

    public func revisionTargets(_ name: String, repositoryID: Int64) throws -> RevisionTargets {
        try read { try TagRows.revisionTargets(name, repositoryID: repositoryID, in: connection) }
    }

    public func shas(ofCommits commitIDs: [Int64]) throws -> [Int64: String] {
        try read { try TagRows.shas(ofCommits: commitIDs, in: connection) }
    }

    public func earliestTags(containing sha: String) throws -> [RepositoryTag] {
        try read { try TagRows.earliestTags(containing: sha, in: connection) }
    }

    public func tagCounts() throws -> [String: Int] {
        try read { try TagRows.counts(in: connection) }
    }
}
