import Foundation

/// Where a mirror is stored, decided once — from `--db`, `$COMMITS_DB`, a
/// configuration's `store:` or the default — and handed to everything that
/// opens the store, instead of a path string each caller interprets anew.
///
/// A store is a SQLite file (the embedded default) or a PostgreSQL database
/// named by libpq's connection URI. This value, and the `open…` methods as the
/// one place a store is opened from a location, are the seam the backends plug
/// into (docs/ARCHITECTURE.md): the stores themselves live in the MirrorSQLite
/// and MirrorPostgreSQL targets, reached through `StoreDrivers`. Any other
/// `scheme://` is refused where a location is made, with one line
/// (`StoreError.databaseURL`), rather than becoming a directory `mysql:`.
public enum StoreLocation: Sendable, Hashable, CustomStringConvertible {
    /// A SQLite file (its `-wal`, `-shm` and `.locks/` live beside it).
    case sqliteFile(String)
    /// A PostgreSQL database: `postgresql://…` or `postgres://…`, without a password.
    case postgreSQL(String)

    /// A location as a user wrote it: a `postgresql://` / `postgres://` URI names
    /// a PostgreSQL database (one with a password in it is refused: the password
    /// goes in the password file or a credential), another `scheme://…` is
    /// refused, anything else is a file.
    public init(_ text: String) throws {
        guard !text.isEmpty else { throw StoreError.emptyPath }
        if Self.isPostgreSQL(text) {
            try StoreDrivers.postgreSQL().validate(address: text)
            self = .postgreSQL(text)
            return
        }
        try StorePath.refuseURL(text)
        self = .sqliteFile(text)
    }

    static func isPostgreSQL(_ text: String) -> Bool {
        let lowered = text.lowercased()
        return lowered.hasPrefix("postgresql://") || lowered.hasPrefix("postgres://")
    }

    /// The location to name in messages and logs (a URI never holds a password: see `init`).
    public var description: String { address }

    /// The SQLite file, `nil` for a database. Only for what is a file's business by
    /// nature — the `flock` claims beside it, a file-level backup, the `-wal` side files.
    public var sqlitePath: String? {
        switch self {
        case .sqliteFile(let path): path
        case .postgreSQL: nil
        }
    }

    /// Whether a database server holds the store, which may be down for a while
    /// and come back (commitsd waits for it), rather than a file on this machine
    /// (one that does not open now will not open by waiting: commitsd exits).
    public var isOnServer: Bool {
        switch self {
        case .sqliteFile: false
        case .postgreSQL: true
        }
    }

    /// The file's path or the database's URI: what the location's driver is given.
    public var address: String {
        switch self {
        case .sqliteFile(let path): path
        case .postgreSQL(let uri): uri
        }
    }

    /// The driver registered for this kind of store, which every `open…` goes through.
    public func driver() throws -> any StoreDriver {
        switch self {
        case .sqliteFile: try StoreDrivers.sqlite()
        case .postgreSQL: try StoreDrivers.postgreSQL()
        }
    }

    /// Opens the store for syncing through the protocols the sync engine, the
    /// discovery and the request ledger speak, whichever backend holds it.
    public func openSyncWriter() throws -> any MirrorWriter {
        try driver().openWriter(address: address)
    }

    /// Opens an existing store as `copy-store`'s source (read-only, one snapshot at a time).
    public func openCopySource() throws -> any MirrorSnapshotSource {
        try driver().openCopySource(address: address)
    }

    /// Opens (creating it as needed) the store `copy-store` fills.
    public func openCopyDestination() throws -> any MirrorCopyDestination {
        try driver().openCopyDestination(address: address)
    }

    /// Opens an existing store for what reads it through `MirrorReading` (the
    /// reading commands, commitsd's plan, metrics and `/readyz`), whichever backend holds it.
    public func openCommitReader() throws -> any MirrorReading {
        try driver().openReader(address: address)
    }

    /// Claims `repository` through a database's driver (PostgreSQL: a session
    /// advisory lock). A file store's claims are `flock`s beside the file, which
    /// `RepositoryLock` takes itself: `.notADatabase`.
    package func claimInDatabase(repository: RepositoryName, holder: String) throws -> DatabaseClaim {
        try driver().claimRepository(address: address, repository: repository, holder: holder)
    }

    /// The claims on sync targets every process using the store shares: rows of
    /// the database (leases by its clock, fenced writes), or for a file store the
    /// `flock`s beside it and due times in memory.
    public func openSyncLeases() throws -> any SyncLeases {
        try driver().openSyncLeases(address: address)
    }

    /// What `claimInDatabase` got.
    public enum DatabaseClaim {
        case notADatabase
        case held(any RepositoryClaim)
        /// Another process holds the repository.
        case busy
    }

    /// Whether the store is there to read (a path this user may not look at is an error, never "no").
    /// A database is asked for by opening it, so it counts as there.
    public func exists() throws -> Bool {
        switch self {
        case .sqliteFile(let path): try StorePath.exists(path)
        case .postgreSQL: true
        }
    }
}

extension StoreLocation {
    /// `explicit` (a flag) when given, else `$COMMITS_DB`, else the
    /// per-user default `$XDG_DATA_HOME/commits-mirror/commits.sqlite`.
    public static func resolve(
        explicit: String?, environment: EnvironmentVariables = .process
    ) throws -> StoreLocation {
        try StoreLocation(StorePath.resolve(explicit: explicit, environment: environment))
    }
}
