import Foundation
import MirrorBookkeeping
import MirrorCore
import SQLite

/// The store's reader: queries, lookups, statistics, checks and backups. It
/// opens the file read-only and cannot change it (SQLite refuses any write on
/// its connection); WAL lets it read while a writer works. The writer is
/// `MirrorStore`.
///
/// One reader owns one connection and is used by one task at a time.
public final class MirrorReader {
    public let path: String
    let db: Connection
    /// Where this reader reads, as every other part names a store.
    public var location: StoreLocation { .sqliteFile(path) }

    public init(path: String) throws {
        self.path = path
        try StoreFile.refuseUnusablePath(path)
        guard try StorePath.exists(path) else { throw StoreError.missing(path: path) }
        do {
            db = try StoreFile.open(path, mode: .readOnly)
        } catch let error as StoreError
            where error.isOpenRefusal && !StorePath.isDirectoryWritable(for: path)
            && !StorePath.hasSideFiles(path)
        {
            // A WAL reader needs -wal and -shm; one that may not create them there
            // (a member of the service's group) reads only once a writer left them.
            throw StoreError.sideFilesMissing(path: path)
        }
        do {
            if try !Schema.migrator.pendingMigrations(in: db).isEmpty { throw StoreError.readOnlyNeedsMigration(path: path) }
        } catch {
            throw StoreFile.classify(error, path: path)
        }
    }

    /// The repository known by `name` (current or former, any case).
    public func repository(named name: RepositoryName) throws -> StoredRepository? {
        try RepositoryRows.repository(named: name, in: db)
    }

    public func repositories() throws -> [StoredRepository] {
        try RepositoryRows.repositories(in: db)
    }

    /// The names the repository was known by besides its current one.
    public func formerNames(of repositoryID: Int64) throws -> [String] {
        try db.prepare(
            """
            SELECT n.name FROM repository_names n JOIN repositories r ON r.id = n.repository_id
            WHERE n.repository_id = ? AND n.name != r.full_name ORDER BY n.name
            """
        ).bind([repositoryID]).map { $0.string(0) }
    }

    /// What the store knows about syncing every mirrored branch.
    /// Every repository's branches, or one repository's.
    public func syncStates(repositoryID: Int64? = nil) throws -> [SyncState] {
        try StoreLookups.syncStates(repositoryID: repositoryID, in: db)
    }

    public func commitCount(repositoryID: Int64? = nil) throws -> Int {
        try RepositoryRows.commitCount(repositoryID: repositoryID, in: db)
    }

    /// SHAs of every commit mirrored for the repository.
    public func commitSHAs(repositoryID: Int64) throws -> Set<String> {
        Set(
            try db.prepare(
                """
                SELECT c.sha FROM repository_commits rc JOIN commits c ON c.id = rc.commit_id WHERE rc.repository_id = ?
                """
            ).bind([repositoryID]).map { $0.string(0) })
    }

    /// `PRAGMA integrity_check`: "ok" for a sound file.
    public func integrityCheck() throws -> String {
        try db.prepare("PRAGMA integrity_check").map { $0.string(0) }.joined(separator: "; ")
    }
}

@available(*, unavailable)
extension MirrorReader: Sendable {}
