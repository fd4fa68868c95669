import MirrorBookkeeping
import MirrorCore
import SQLite

// Tags and revision names on a SQLite store: the shared reads (TagRows), each in one read transaction.

extension MirrorReader {
    public func tags(repositoryID: Int64?, includingEnded: Bool) throws -> [StoredTag] {
        try db.transaction(.deferred) { try TagRows.tags(repositoryID: repositoryID, includingEnded: includingEnded, in: db) }
    }

    public func revisionTargets(_ name: String, repositoryID: Int64) throws -> RevisionTargets {
        try db.transaction(.deferred) { try TagRows.revisionTargets(name, repositoryID: repositoryID, in: db) }
    }

    public func shas(ofCommits commitIDs: [Int64]) throws -> [Int64: String] {
        try db.transaction(.deferred) { try TagRows.shas(ofCommits: commitIDs, in: db) }
    }

    public func earliestTags(containing sha: String) throws -> [RepositoryTag] {
        try db.transaction(.deferred) { try TagRows.earliestTags(containing: sha, in: db) }
    }

    public func tagCounts() throws -> [String: Int] {
        try db.transaction(.deferred) { try TagRows.counts(in: db) }
    }
}
