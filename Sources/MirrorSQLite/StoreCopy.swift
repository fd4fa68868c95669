import Foundation
import MirrorBookkeeping
import MirrorCore
import SQLite

extension MirrorReader {
    /// Copies the store to `destination` while other processes may be writing
    /// it: SQLite's online backup of one consistent snapshot (WAL readers never
    /// wait for writers, and writers never wait for this). The copy is checked
    /// (`PRAGMA quick_check`) before it gets its name, and nothing is ever
    /// overwritten.
    public func backup(to destination: String) throws -> StoreBackup {
        try StoreCopy.writeBackup(to: destination) { partial in try db.backup(to: partial) }
    }
}

/// Verified copies of a store: `backup` (of either backend), and the copy made before an upgrade.
enum StoreCopy {
    /// Writes the copy to `<destination>.partial-<pid>`, checks it, then links
    /// it to its name (which fails rather than replace an existing file), so a
    /// crash or a full disk never leaves a half copy under the final name.
    @discardableResult
    static func writeVerified(of db: Connection, to destination: String) throws -> StoreBackup {
        try writeVerified(to: destination) { partial in try db.backup(to: partial) }
    }

    /// A user's backup: refused before anything is written when `destination`
    /// exists or its directory does not; `write` fills the partial file it is given.
    static func writeBackup(to destination: String, _ write: (String) throws -> Void) throws -> StoreBackup {
        guard !FileManager.default.fileExists(atPath: destination) else {
            throw StoreError.backupDestinationExists(path: destination)
        }
        let directory = StorePath.directory(of: destination)
        guard FileManager.default.fileExists(atPath: directory) else {
            throw StoreError.cannotWriteBackup(backup: destination, reason: "the directory \(directory) does not exist")
        }
        // Said before any work, in words: a purge's copy into the current directory meets this most.
        guard access(directory, W_OK) == 0 else {
            throw StoreError.cannotWriteBackup(
                backup: destination, reason: "the directory \(directory) is not writable by this user")
        }
        // Other errors are one line already: a StoreError, a database store's own (unreachable, say).
        do {
            return try writeVerified(to: destination, write)
        } catch let error as SQLiteError {
            throw StoreError.cannotWriteBackup(backup: destination, reason: reason(error))
        } catch let error as CopyError {
            throw StoreError.cannotWriteBackup(backup: destination, reason: error.description)
        }
    }

    /// `write` fills the partial file; it is checked and named here.
    static func writeVerified(to destination: String, _ write: (String) throws -> Void) throws -> StoreBackup {
        let partial = "\(destination).partial-\(getpid())"
        removeDatabaseFiles(partial)
        do {
            try write(partial)
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
