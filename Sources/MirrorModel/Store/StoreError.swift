import Foundation

/// Store failures, stated as facts; the executables add what their user can do.
public enum StoreError: Error, Sendable, CustomStringConvertible {
    case cannotCreateDirectory(String, reason: String)
    case missing(path: String)
    /// This user may not read the store: `blocked` is the directory or file that refuses it.
    case permissionDenied(path: String, blocked: String)
    /// Read-only, in a directory this user cannot write, and the WAL side files are missing.
    case sideFilesMissing(path: String)
    /// The path names a directory, FIFO, device or socket; refused before anything opens it.
    case notAFile(path: String, kind: FileKind)
    /// An empty path.
    case emptyPath
    /// The store is named by a URL (`postgresql://…`): only SQLite files are supported.
    case databaseURL(scheme: String)
    /// No driver for a database store was registered (a build without it).
    case noDriver(scheme: String)
    /// The command needs what only the SQLite store has so far.
    case notYetOnPostgreSQL
    case notAStore(path: String, underlying: UnderlyingError)
    case cannotOpen(path: String, underlying: UnderlyingError)
    case newerSchema(path: String, found: Int, known: Int)
    case readOnlyNeedsMigration(path: String)
    case busy(path: String)
    /// SQLITE_FULL: the disk (or a size limit) has no room; the write was rolled back.
    case full(path: String)
    /// The store file cannot be written (SQLITE_READONLY).
    case readOnly(path: String, underlying: UnderlyingError)
    /// The store's directory cannot be written, so SQLite cannot create `-wal`/`-shm` (or the store) there.
    case readOnlyDirectory(path: String, directory: String)
    /// SQLITE_IOERR: the operating system failed a read or write.
    case ioError(path: String, underlying: UnderlyingError)
    /// An SQLite database with tables of its own and no commits-mirror schema.
    case foreignDatabase(path: String)
    /// The copy written before an upgrade could not be made; nothing was upgraded.
    case backupFailed(path: String, backup: String, reason: String)
    /// An upgrade failed and was rolled back; `backup` is the copy made before it.
    case migrationFailed(path: String, from: Int, to: Int, backup: String?, reason: String)
    /// A backup never overwrites a file.
    case backupDestinationExists(path: String)
    /// A backup could not write its copy (the store is not changed by a backup).
    case cannotWriteBackup(backup: String, reason: String)
    /// A write, renewal or release under a lease that no longer holds its target
    /// (it ran out and another owner claimed it, or it was released): nothing was written.
    case leaseLost(SyncLease)
    /// Any other failure of the backend, as it stated it.
    case backend(UnderlyingError)

    /// SQLite could not open or write the file (as a reader without its WAL side files meets it).
    package var isOpenRefusal: Bool {
        switch self {
        case .cannotOpen, .readOnly, .readOnlyDirectory: return true
        default: return false
        }
    }

    public var description: String {
        switch self {
        case .cannotCreateDirectory(let directory, let reason):
            return "cannot create the store directory \(directory): \(reason)"
        case .missing(let path):
            return "no store at \(path)"
        case .permissionDenied(let path, let blocked):
            let what =
                blocked == path
                ? "the file itself is not readable by this user"
                : blocked.hasSuffix("-wal") || blocked.hasSuffix("-shm")
                    ? "its WAL side file \(blocked) is not readable by this user"
                    : "this user may not enter the directory \(blocked)"
            return
                "permission denied reading the store \(path): \(what); run as the store's owner or a member of its group (for the service: the commits-mirror group), or fix the permissions"
        case .sideFilesMissing(let path):
            return
                "cannot read the store \(path) without \(path)-wal and \(path)-shm, and this user may not create them in \(StorePath.directory(of: path)); start the service (or run one sync as its user) once: the files then stay"
        case .notAFile(let path, let kind):
            return "the store path \(path) is \(kind), not a store file"
        case .emptyPath:
            return "the store path is empty"
        case .databaseURL(let scheme):
            return
                "the store is a \(scheme):// URL; a store is an SQLite file path or a postgresql:// (postgres://) URI"
        case .noDriver(let scheme) where scheme == "sqlite":
            return "this program was built without the SQLite store driver; name a PostgreSQL database instead"
        case .noDriver(let scheme):
            return "this program was built without the \(scheme) store driver; give the path of an SQLite store file"
        case .notYetOnPostgreSQL:
            return
                "this command does not work on a PostgreSQL store yet (docs/POSTGRESQL.md lists what does); run it on an SQLite store"
        case .notAStore(let path, _):
            return "\(path) is not a commits-mirror store (not an SQLite database)"
        case .cannotOpen(let path, let error):
            return "cannot open the store \(path): \(error.message); check the path and its permissions"
        case .newerSchema(let path, let found, let known):
            return
                "the store \(path) has schema version \(found), newer than this program knows (\(known)); upgrade commits-mirror. The store was left untouched"
        case .readOnlyNeedsMigration(let path):
            return "the store \(path) needs a schema upgrade, which opening it read-only cannot make"
        case .busy(let path):
            return "the store \(path) is locked by another writer beyond the busy timeout"
        case .full(let path):
            return
                "the store \(path) cannot grow: its disk (or a size limit) is full. The write in progress was rolled back whole, nothing stored before is lost; free some space and run again"
        case .readOnly(let path, let error):
            return "cannot write the store \(path): \(error.message); the store file must be writable by this user"
        case .readOnlyDirectory(let path, let directory):
            return
                "cannot use the store \(path): its directory \(directory) is not writable by this user, and SQLite must be able to create files there (\(path)-wal and \(path)-shm, even to read a store); make the directory writable or move the store"
        case .ioError(let path, let error):
            return
                "the operating system failed to read or write the store \(path) (\(error.message)); check the disk (full? failing?) and run again"
        case .foreignDatabase(let path):
            return "\(path) is an SQLite database of some other program (it has tables but no commits-mirror schema); it was left untouched"
        case .backupFailed(let path, let backup, let reason):
            return
                "cannot upgrade the store \(path): the backup copy \(backup) it needs first could not be written (\(reason)). The store was left untouched; free space beside it and run again"
        case .migrationFailed(let path, let from, let to, let backup, let reason):
            var text =
                "upgrading the store \(path) from schema version \(from) to \(to) failed: \(reason). The upgrade was rolled back and the store left as it was"
            if let backup { text += "; a copy made before the upgrade is at \(backup)" }
            return text
        case .backupDestinationExists(let path):
            return "\(path) already exists; a backup never overwrites a file: choose a new path or remove it first"
        case .cannotWriteBackup(let backup, let reason):
            return
                "cannot write the backup \(backup): \(reason); nothing was written there, and the store itself is never changed by a backup"
        case .leaseLost(let lease):
            return
                "the claim on \(lease.target) by \(lease.owner) (lease generation \(lease.generation)) is lost: its lease ran out and another owner claimed it, or it was released; nothing was written under it"
        case .backend(let error):
            return "store error: \(error)"
        }
    }
}

/// A backend's own error under a `StoreError`: kept whole for logs, with the
/// short line of it a message quotes, so the model needs no backend's types.
public struct UnderlyingError: Error, Sendable, CustomStringConvertible {
    public let error: any Error & Sendable
    /// The backend's message alone (SQLite's `sqlite3_errmsg`), without its codes.
    public let message: String

    public init(_ error: any Error & Sendable, message: String) {
        self.error = error
        self.message = message
    }

    public var description: String { "\(error)" }
}
