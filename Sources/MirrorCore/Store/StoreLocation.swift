import Foundation

/// Where a mirror is stored, decided once — from `--db`, `$COMMITS_DB`, a
/// configuration's `store:` or the default — and handed to everything that
/// opens the store, instead of a path string each caller interprets anew.
///
/// A store is a SQLite file today. This value, and `openWriter()` /
/// `openReader()` as the one place a store is opened from a location, are the
/// seam a second backend (PostgreSQL, docs/SCALING.md) plugs into: a new case
/// here, not a new parameter at every call site. Until that backend exists a
/// database URL is refused where a location is made, with one line
/// (`StoreError.databaseURL`), rather than becoming a directory `postgresql:`.
public enum StoreLocation: Sendable, Hashable, CustomStringConvertible {
    /// A SQLite file (its `-wal`, `-shm` and `.locks/` live beside it).
    case sqliteFile(String)

    /// A location as a user wrote it: a `scheme://…` URL names a database server
    /// (refused until one is supported), anything else a file.
    public init(_ text: String) throws {
        guard !text.isEmpty else { throw StoreError.emptyPath }
        try StorePath.refuseURL(text)
        self = .sqliteFile(text)
    }

    /// The location to name in messages and logs.
    public var description: String {
        switch self {
        case .sqliteFile(let path): path
        }
    }

    /// The SQLite file. Only for what is a file's business by nature — the
    /// `flock` claims beside it, a file-level backup, the `-wal` side files.
    public var sqlitePath: String {
        switch self {
        case .sqliteFile(let path): path
        }
    }

    /// Opens the store for changing it, creating it and bringing its schema up to date as needed.
    public func openWriter() throws -> MirrorStore {
        switch self {
        case .sqliteFile(let path): try MirrorStore(path: path)
        }
    }

    /// Opens an existing store for reading; a missing one is `StoreError.missing`.
    public func openReader() throws -> MirrorReader {
        switch self {
        case .sqliteFile(let path): try MirrorReader(path: path)
        }
    }

    /// Whether the store is there to read (a path this user may not look at is an error, never "no").
    public func exists() throws -> Bool {
        switch self {
        case .sqliteFile(let path): try StorePath.exists(path)
        }
    }
}

extension StoreLocation {
    /// `explicit` (a flag) when given, else `$COMMITS_DB`, else the
    /// per-user default `$XDG_DATA_HOME/commits-mirror/commits.sqlite`.
    public static func resolve(
        explicit: String?, environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws -> StoreLocation {
        try StoreLocation(StorePath.resolve(explicit: explicit, environment: environment))
    }
}
