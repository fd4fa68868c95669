import MirrorBookkeeping
import MirrorCore

/// The SQLite store's driver (`StoreDrivers.register(sqlite:)`): a store is one
/// file, `MirrorStore` writing it and `MirrorReader` reading it.
public struct SQLiteDriver: FileStoreDriver {
    public init() {}

    public func openWriter(path: String) throws -> any MirrorWriter {
        try MirrorStore(path: path)
    }

    public func openCopySource(path: String) throws -> any MirrorSnapshotSource {
        try MirrorReader(path: path)
    }

    public func openCopyDestination(path: String) throws -> any MirrorCopyDestination {
        try MirrorStore(path: path)
    }

    public func openReader(path: String) throws -> any MirrorReading {
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

    public func openSyncLeases(path: String) throws -> any SyncLeases {
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

// The SQLite store's concrete types, for what is not yet spoken through the
// protocols (commitsd's service).
extension StoreLocation {
    /// Opens a SQLite store as its concrete writer, for what is not yet spoken
    /// through the protocols (commitsd's service); a PostgreSQL store is
    /// `StoreError.notYetOnPostgreSQL`. Every commitsctl command uses `openSyncWriter`.
    public func openWriter() throws -> MirrorStore {
        switch self {
        case .sqliteFile(let path): try MirrorStore(path: path)
        case .postgreSQL: throw StoreError.notYetOnPostgreSQL
        }
    }

    /// Opens an existing SQLite store as its concrete reader (commitsd's service);
    /// a missing one is `StoreError.missing`, a PostgreSQL store
    /// `StoreError.notYetOnPostgreSQL`. Every commitsctl command uses `openCommitReader`.
    public func openReader() throws -> MirrorReader {
        switch self {
        case .sqliteFile(let path): try MirrorReader(path: path)
        case .postgreSQL: throw StoreError.notYetOnPostgreSQL
        }
    }
}
