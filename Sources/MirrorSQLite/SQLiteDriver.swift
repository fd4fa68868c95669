import MirrorBookkeeping
import MirrorCore

/// The SQLite store's driver (`StoreDrivers.register(sqlite:)`): a store is one
/// file, named by its path, `MirrorStore` writing it and `MirrorReader` reading it.
public struct SQLiteDriver: StoreDriver {
    public init() {}

    public func validate(address path: String) throws {
        try StorePath.refuseURL(path)
    }

    public func openWriter(address path: String) throws -> any MirrorWriter {
        try MirrorStore(path: path)
    }

    public func openCopySource(address path: String) throws -> any MirrorSnapshotSource {
        try MirrorReader(path: path)
    }

    public func openCopyDestination(address path: String) throws -> any MirrorCopyDestination {
        try MirrorStore(path: path)
    }

    public func openReader(address path: String) throws -> any MirrorReading {
        try MirrorReader(path: path)
    }

    public func backup(of source: StoreLocation, to destination: String) throws -> StoreBackup {
        if let path = source.sqlitePath {
            return try MirrorReader(path: path).backup(to: destination)
        }
        // A missing source is an error before any file is made, never an empty copy.
        return try StoreCopy.writeBackup(to: destination) { partial in
            _ = try StoreTransfer.copy(from: source, to: .sqliteFile(partial))
        }
    }

    /// A file names no database.
    public func databaseName(address: String) throws -> String? { nil }

    /// A file's claims are `flock`s beside it, which `RepositoryLock` takes itself.
    public func claimRepository(address: String, repository: RepositoryName, holder: String) throws
        -> StoreLocation.DatabaseClaim
    {
        .notADatabase
    }

    /// The `flock`s beside the file and due times in this process's memory.
    public func openSyncLeases(address path: String) throws -> any SyncLeases {
        HostSyncLeases(store: .sqliteFile(path))
    }
}

extension MirrorStore: MirrorWriter {}

extension MirrorReader: MirrorReading {
    public func ownerListing(owner: String) throws -> OwnerListing? {
        try RepositoryRows.ownerListing(owner: owner, in: db)
    }

    public func activeRepositories(ownedBy owner: String) throws -> [StoredRepository] {
        try RepositoryRows.activeRepositories(ownedBy: owner, in: db)
    }

    /// One host writes a SQLite store: its claims (`HostSyncLeases`) are that host's, not shown.
    public func heldClaims() throws -> [SyncLease] { [] }
    /// One host's commitsd keeps its queue in memory (`HostSyncLeases`).
    public func queuedRepositories() throws -> [RepositoryName] { [] }
}
