import Foundation
import MirrorCore
import SQLite

/// Opening the store file, for the reader and the writer alike: what is
/// refused before SQLite touches anything, and how SQLite's failures read.
enum StoreFile {
    /// Before SQLite (or a directory creation) touches anything: opening a FIFO
    /// would block forever, and `/dev/null` would get a `/dev/null-journal` beside it.
    static func refuseUnusablePath(_ path: String) throws {
        guard !path.isEmpty else { throw StoreError.emptyPath }
        try StorePath.refuseURL(path)
        let kind = FileKind.of(path)
        if kind.isSpecial { throw StoreError.notAFile(path: path, kind: kind) }
    }

    /// A connection to the store, after refusing another program's database
    /// (looked at before anything could change it: opening read-write switches a file to WAL).
    static func open(_ path: String, mode: Connection.Mode) throws -> Connection {
        do {
            let connection: Connection
            if mode == .readOnly {
                connection = try openReadOnly(path)
            } else {
                try refuseForeignDatabase(at: path)
                connection = try Connection(path: path, mode: mode)
            }
            try MessageSearch.addFunction(to: connection)
            return connection
        } catch {
            throw classify(error, path: path)
        }
    }

    /// A reader looks with the connection it then reads through: one open and
    /// one reading of the schema on the path before a query's first statement.
    private static func openReadOnly(_ path: String) throws -> Connection {
        let connection = try Connection(path: path, mode: .inspect)
        try refuseForeignDatabase(connection, path: path)
        try connection.requireWALJournal()
        return connection
    }

    /// Throws `foreignDatabase` for an SQLite file with tables but no
    /// `schema_migrations`: another program's database, never to be extended.
    /// Looks without writing (the journal mode is left as it is).
    static func refuseForeignDatabase(at path: String) throws {
        // stat(2), not FileManager: its attributes look up the owner's user and group names (NSS).
        guard case .regularFile(let size) = FileKind.of(path), size > 0 else { return }
        try refuseForeignDatabase(Connection(path: path, mode: .inspect), path: path)
    }

    private static func refuseForeignDatabase(_ file: Connection, path: String) throws {
        // One statement: on a reader's path every statement prepared is start-up time.
        let foreign = try file.scalarInt(
            """
            SELECT count(*) > 0 AND NOT max(name = 'schema_migrations') FROM sqlite_master WHERE type = 'table'
            """)
        if foreign == 1 { throw StoreError.foreignDatabase(path: path) }
    }

    /// SQLite's and the migrator's failures as store errors that name the path.
    static func classify(_ error: any Error, path: String) -> any Error {
        switch error {
        case let error as SQLiteError:
            return classify(error, path: path)
        case Migrator.MigrationError.newerSchema(let found, let known):
            return StoreError.newerSchema(path: path, found: found, known: known)
        default:
            return error
        }
    }

    static func classify(_ error: SQLiteError, path: String) -> StoreError {
        switch error.code {
        case .SQLITE_NOTADB: return .notAStore(path: path, underlying: UnderlyingError(error))
        case .SQLITE_BUSY: return .busy(path: path)
        case .SQLITE_FULL: return .full(path: path)
        case .SQLITE_READONLY:
            if error.code == .SQLITE_READONLY_DIRECTORY || !StorePath.isDirectoryWritable(for: path) {
                return .readOnlyDirectory(path: path, directory: StorePath.directory(of: path))
            }
            return .readOnly(path: path, underlying: UnderlyingError(error))
        case .SQLITE_CANTOPEN:
            if !StorePath.isDirectoryWritable(for: path) {
                return .readOnlyDirectory(path: path, directory: StorePath.directory(of: path))
            }
            return .cannotOpen(path: path, underlying: UnderlyingError(error))
        case .SQLITE_IOERR: return .ioError(path: path, underlying: UnderlyingError(error))
        default: return .backend(UnderlyingError(error))
        }
    }
}

extension UnderlyingError {
    /// An SQLite failure under a store error: SQLite's message is the line a store error quotes.
    init(_ error: SQLiteError) {
        self.init(error, message: error.message)
    }
}

extension StoreError {
    /// SQLite's generic error with `message`: rows that contradict what was just written or read.
    static func sqliteError(_ message: String) -> StoreError {
        .backend(UnderlyingError(SQLiteError(code: .SQLITE_ERROR, message: message)))
    }
}
