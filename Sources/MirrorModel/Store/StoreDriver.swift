import Synchronization

/// A database's driver: it opens the stores of one kind (SQLite's files by
/// their path, PostgreSQL's databases by their URI) through the protocols the
/// core speaks (`SyncStore`, `RepositoryCatalogue`, `RequestRecords`,
/// `MirrorReading`, ...), the way River takes a driver per database. Drivers
/// live in targets of their own (MirrorSQLite, MirrorPostgreSQL), which the core
/// does not depend on; each executable registers both before it resolves a
/// store location, and `StoreLocation` hands each call to its kind's driver.
/// Every method takes the location's `address`: the file's path or the URI.
public protocol StoreDriver: Sendable {
    /// Refuses an address the driver would never accept, before anything is opened (a password in a URI).
    func validate(address: String) throws
    /// Opens the store for syncing, creating it or bringing its schema up to date.
    func openWriter(address: String) throws -> any MirrorWriter
    /// Opens an existing store as `copy-store`'s source.
    func openCopySource(address: String) throws -> any MirrorSnapshotSource
    /// Opens (creating it as needed) the store `copy-store` fills.
    func openCopyDestination(address: String) throws -> any MirrorCopyDestination
    /// Opens an existing store for the reading commands; it never creates or
    /// migrates one (a missing store is `StoreError.missing`, a newer schema refused).
    func openReader(address: String) throws -> any MirrorReading
    /// Writes a checked copy of `source` into the new SQLite file `destination`.
    func backup(of source: StoreLocation, to destination: String) throws -> StoreBackup
    /// The database the address names, for file names; `nil` for a file, or when it names none.
    func databaseName(address: String) throws -> String?
    /// Claims `repository` for one sync at a time across every process using the
    /// store, daemons included; `.notADatabase` where the claim is a `flock`
    /// beside a file, which `RepositoryLock` takes itself.
    func claimRepository(address: String, repository: RepositoryName, holder: String) throws -> StoreLocation.DatabaseClaim
    /// The queue of sync targets and their leases every process using the store shares.
    func openSyncLeases(address: String) throws -> any SyncLeases
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
    private static let sqliteDriver = Mutex<(any StoreDriver)?>(nil)
    private static let postgreSQLDriver = Mutex<(any StoreDriver)?>(nil)

    /// Registers the SQLite driver; executables call this first thing.
    public static func register(sqlite driver: any StoreDriver) {
        sqliteDriver.withLock { $0 = driver }
    }

    /// Registers the PostgreSQL driver; executables call this first thing.
    public static func register(postgreSQL driver: any StoreDriver) {
        postgreSQLDriver.withLock { $0 = driver }
    }

    package static func sqlite() throws -> any StoreDriver {
        guard let driver = sqliteDriver.withLock({ $0 }) else { throw StoreError.noDriver(scheme: "sqlite") }
        return driver
    }

    package static func postgreSQL() throws -> any StoreDriver {
        guard let driver = postgreSQLDriver.withLock({ $0 }) else { throw StoreError.noDriver(scheme: "postgresql") }
        return driver
    }
}
