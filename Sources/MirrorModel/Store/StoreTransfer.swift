import Foundation

/// A store read as one consistent snapshot, table by table (`copy-store`'s source).
public protocol MirrorSnapshotSource: AnyObject {
    /// Runs `body` inside one read snapshot: writers may go on meanwhile, and
    /// every table read in `body` shows the same moment.
    func withSnapshot<T>(_ body: () throws -> T) throws -> T
    /// Every row of `table`, in its key's order, as text (NULL is `nil`; a flag is "0" or "1").
    func forEachRow(of table: MirrorTable, _ body: ([String?]) throws -> Void) throws
}

/// An empty store filled by `copy-store`, in one transaction.
public protocol MirrorCopyDestination: AnyObject {
    /// Commits and repositories it holds already (a copy only fills an empty store).
    func heldCounts() throws -> (repositories: Int, commits: Int)
    /// Runs `body` in one transaction and rebuilds the derived data at its end.
    func loading(_ body: () throws -> Void) throws
    /// Appends `rows` (values in `table.columns` order) to `table`.
    func load(_ rows: [[String?]], into table: MirrorTable) throws
}

/// What `copy-store` copied.
public struct StoreTransferReport: Sendable, Equatable {
    public var repositories = 0
    public var commits = 0
    public var rows = 0
}

/// Copies a whole mirror between any two stores (SQLite or PostgreSQL, either
/// way): every table of one snapshot of the source, ids kept, into an empty
/// destination in one transaction. A failure leaves the destination empty.
public enum StoreTransfer {
    /// Rows sent to the destination at a time: memory stays bounded whatever the size.
    static let chunk = 2_000

    public static func copy(from source: StoreLocation, to destination: StoreLocation) throws -> StoreTransferReport {
        guard source != destination else { throw StoreTransferError.sameStore(source.description) }
        let reader = try source.openCopySource()
        let writer = try destination.openCopyDestination()
        let held = try writer.heldCounts()
        guard held.repositories == 0 && held.commits == 0 else {
            throw StoreTransferError.destinationNotEmpty(destination.description, commits: held.commits)
        }
        var report = StoreTransferReport()
        try reader.withSnapshot {
            try writer.loading {
                for table in MirrorTable.all {
                    var rows: [[String?]] = []
                    rows.reserveCapacity(chunk)
                    try reader.forEachRow(of: table) { row in
                        rows.append(row)
                        if rows.count == chunk {
                            try writer.load(rows, into: table)
                            rows.removeAll(keepingCapacity: true)
                        }
                        report.rows += 1
                        if table.name == "commits" { report.commits += 1 }
                        if table.name == "repositories" { report.repositories += 1 }
                    }
                    if !rows.isEmpty { try writer.load(rows, into: table) }
                }
            }
        }
        return report
    }
}

public enum StoreTransferError: Error, Sendable, CustomStringConvertible {
    case sameStore(String)
    case destinationNotEmpty(String, commits: Int)

    public var description: String {
        switch self {
        case .sameStore(let store):
            return "the source and the destination are the same store (\(store))"
        case .destinationNotEmpty(let store, let commits):
            return
                "the destination \(store) already holds a mirror (\(commits) commits); copy into a new, empty store: nothing was changed"
        }
    }
}
