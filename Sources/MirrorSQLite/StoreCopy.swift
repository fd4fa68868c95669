import Foundation
import MirrorCore
import SQLite

/// What a backup wrote.
public struct StoreBackup: Sendable, Equatable {
    public var path: String
    public var bytes: Int
    public var repositories: Int
    public var commits: Int
}

extension MirrorReader {
    /// Copies the store to `destination` while other processes may be writing
    /// it: SQLite's online backup of one consistent snapshot (WAL readers never
    /// wait for writers, and writers never wait for this). The copy is checked
    /// (`PRAGMA quick_check`) before it gets its name, and nothing is ever
    /// overwritten.
    public func backup(to destination: String) throws -> StoreBackup {
        guard !FileManager.default.fileExists(atPath: destination) else {
            throw StoreError.backupDestinationExists(path: destination)
        }
        let directory = StorePath.directory(of: destination)
        guard FileManager.default.fileExists(atPath: directory) else {
            throw StoreError.cannotWriteBackup(backup: destination, reason: "the directory \(directory) does not exist")
        }
        do {
            return try StoreCopy.writeVerified(of: db, to: destination)
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError.cannotWriteBackup(backup: destination, reason: StoreCopy.reason(error))
        }
    }
}

/// Verified copies of a store: `backup`, and the copy made before an upgrade.
enum StoreCopy {
    /// Writes the copy to `<destination>.partial-<pid>`, checks it, then links
    /// it to its name (which fails rather than replace an existing file), so a
    /// crash or a full disk never leaves a half copy under the final name.
    @discardableResult
    static func writeVerified(of db: Connection, to destination: String) throws -> StoreBackup {
        let partial = "\(destination).partial-\(getpid())"
        removeDatabaseFiles(partial)
        do {
            try db.backup(to: partial)
            // Closing this read-write connection checkpoints and removes the copy's -wal and -shm.
            let copy = try Connection(path: partial)
            let check = try copy.pragma("quick_check")
            let summary = StoreBackup(
                path: destination, bytes: 0,
                repositories: try copy.scalarInt("SELECT count(*) FROM repositories") ?? 0,
                commits: try copy.scalarInt("SELECT count(*) FROM commits") ?? 0)
            try copy.close()
            guard check == "ok" else { throw CopyError(description: "the copy failed its check: \(check)") }
            if link(partial, destination) != 0 {
                let code = errno
                if code == EEXIST { throw StoreError.backupDestinationExists(path: destination) }
                // File systems without hard links: a rename (the existence check above still holds).
                guard rename(partial, destination) == 0 else {
                    throw CopyError(description: String(cString: strerror(errno)))
                }
            }
            removeDatabaseFiles(partial)
            let attributes = try? FileManager.default.attributesOfItem(atPath: destination)
            return StoreBackup(
                path: destination, bytes: (attributes?[.size] as? Int) ?? 0,
                repositories: summary.repositories, commits: summary.commits)
        } catch {
            removeDatabaseFiles(partial)
            throw error
        }
    }

    private static func removeDatabaseFiles(_ path: String) {
        for suffix in ["", "-wal", "-shm", "-journal"] { unlink(path + suffix) }
    }

    static func reason(_ error: any Error) -> String {
        (error as? SQLiteError)?.message ?? "\(error)"
    }

    struct CopyError: Error, CustomStringConvertible {
        var description: String
    }
}
