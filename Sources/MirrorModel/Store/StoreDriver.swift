import Synchronization

/// A store kept in one file (SQLite's, the embedded default), opened by its
/// path. The core speaks to stores only through the protocols (`SyncStore`,
/// `RepositoryCatalogue`, `RequestRecords`, `MirrorReading`, ...), and a driver
/// opens them, the way River takes a driver per database. Drivers live in
/// targets of their own (MirrorSQLite, MirrorPostgreSQL), which the core does
/// not depend on; each executable registers both before it resolves a store
/// location. What is a file's business whatever the file holds (whether it
/// exists, the `flock` claims beside it) stays with `StorePath` and
/// `RepositoryLock`.
public protocol FileStoreDriver: Sendable {
    /// Opens the store for syncing, creating it or bringing its schema up to date.
    func openWriter(path: String) throws -> any MirrorWriter
    /// Opens an existing store as `copy-store`'s source.
    func openCopySource(path: String) throws -> any MirrorSnapshotSource
    /// Opens (creating it as needed) the store `copy-store` fills.
    func openCopyDestination(path: String) throws -> any MirrorCopyDestination
    /// Opens an existing store for the reading commands; a missing one is `StoreError.missing`.
    func openReader(path: String) throws -> any MirrorReading
    /// Writes a checked copy of `source` (a store of any kind) into the new
    /// file `destination`: a copy is always a store file of this kind.
    func backup(of source: StoreLocation, to destination: String) throws -> StoreBackup
}

/// A store that lives in a database server rather than a file (PostgreSQL's),
/// opened by its URI: see `FileStoreDriver` for how drivers are found.
public protocol DatabaseStoreDriver: Sendable {
    /// Refuses a URI the driver would never accept, before anything is opened: a
    /// password in it (they belong in the server's password file or a credential).
    func validate(uri: String) throws
    /// Opens the store for syncing, creating its schema or bringing it up to date.
    func openWriter(uri: String) throws -> any MirrorWriter
    /// Opens an existing store as `copy-store`'s source.
    func openCopySource(uri: String) throws -> any MirrorSnapshotSource
    /// Opens (creating its schema as needed) the store `copy-store` fills.
    func openCopyDestination(uri: String) throws -> any MirrorCopyDestination
    /// Opens an existing store for the reading commands; it never creates or
    /// migrates one (a missing schema is `StoreError.missing`, a newer one refused).
    func openReader(uri: String) throws -> any MirrorReading
    /// The database the URI names (libpq's default when it names none: the user's), for file names.
    func databaseName(uri: String) throws -> String?
    /// Claims `repository` for one sync at a time across every process using the
    /// store (what a `flock` beside a SQLite file does), daemons included; `nil`
    /// (or `RepositoryLockError.busy` naming the holder) when another holds it.
    func claimRepository(uri: String, repository: RepositoryName, holder: String) throws -> (any RepositoryClaim)?
    /// The queue of sync targets and their leases, shared through the database by
    /// every process using the store, on a connection of its own.
    func openSyncLeases(uri: String) throws -> any SyncLeases
}

/// A claim on a repository, held until released (or its holder's connection ends).
public protocol RepositoryClaim: AnyObject {
    /// A writer whose writes the claim fences (refused once the claim is lost), or `nil` for the store's own.
    func openWriter() throws -> (any MirrorWriter)?
    func release()
}

/// What the writing commands write through: the sync engine's store, the
/// catalogue of repositories, the branch listings kept, the request ledger,
/// imports and the explicit removals (prune, purge), on one connection.
public protocol MirrorWriter: SyncStore, RepositoryCatalogue, BranchListingRecords, RequestRecords, CommitImporting,
    HistoryRemoval
{
    var location: StoreLocation { get }
    /// A schema upgrade made when the store was opened, to report once.
    var upgraded: StoreUpgrade? { get }
}

/// The registered drivers, one per kind of store.
public enum StoreDrivers {
    private static let sqliteDriver = Mutex<(any FileStoreDriver)?>(nil)
    private static let postgreSQLDriver = Mutex<(any DatabaseStoreDriver)?>(nil)

    /// Registers the SQLite driver; executables call this first thing.
    public static func register(sqlite driver: any FileStoreDriver) {
        sqliteDriver.withLock { $0 = driver }
    }

    /// Registers the PostgreSQL driver; executables call this first thing.
    public static func register(postgreSQL driver: any DatabaseStoreDriver) {
        postgreSQLDriver.withLock { $0 = driver }
    }

    static func sqlite() throws -> any FileStoreDriver {
        guard let driver = sqliteDriver.withLock({ $0 }) else { throw StoreError.noDriver(scheme: "sqlite") }
        return driver
    }

    static func postgreSQL() throws -> any DatabaseStoreDriver {
        guard let driver = postgreSQLDriver.withLock({ $0 }) else { throw StoreError.noDriver(scheme: "postgresql") }
        return driver
    }
}
