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
}

extension MirrorStore: MirrorWriter {}

extension MirrorReader: MirrorReading {}

// The SQLite store's concrete types, for the commands that need more than the
// protocols give (import, prune, purge, backup, and commitsd's metrics reader).
extension StoreLocation {
    /// Opens a SQLite store for what only its concrete writer does yet (import,
    /// prune, purge); a PostgreSQL store is `StoreError.notYetOnPostgreSQL`.
    public func openWriter() throws -> MirrorStore {
        switch self {
        case .sqliteFile(let path): try MirrorStore(path: path)
        case .postgreSQL: throw StoreError.notYetOnPostgreSQL
        }
    }

    /// Opens an existing SQLite store for reading; a missing one is `StoreError.missing`.
    /// The readers of a PostgreSQL store are not built yet: `StoreError.notYetOnPostgreSQL`.
    public func openReader() throws -> MirrorReader {
        switch self {
        case .sqliteFile(let path): try MirrorReader(path: path)
        case .postgreSQL: throw StoreError.notYetOnPostgreSQL
        }
    }
}
