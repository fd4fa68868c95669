import MirrorSQLite

/// The store opened as its writer or as a reader, for tests that must hold for both.
public enum StoreSide: Sendable, CaseIterable {
    case writer, reader

    public func open(_ path: String) throws {
        switch self {
        case .writer: _ = try MirrorStore(path: path)
        case .reader: _ = try MirrorReader(path: path)
        }
    }
}
