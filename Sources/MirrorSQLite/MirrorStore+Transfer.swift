import Foundation
import MirrorBookkeeping
import MirrorCore
import SQLite

// The SQLite store as copy-store's source (a read snapshot of the reader) and
// destination (the writer, in one immediate transaction).

extension MirrorReader: MirrorSnapshotSource {
    public func withSnapshot<T>(_ body: () throws -> T) throws -> T {
        try db.transaction(.deferred, body)
    }

    public func forEachRow(of table: MirrorTable, _ body: ([String?]) throws -> Void) throws {
        let columns = table.columns.map { column in
            column.kind == .bytes ? "iif(\(column.name) IS NULL, NULL, lower(hex(\(column.name))))" : column.name
        }.joined(separator: ", ")
        let statement = try db.prepare("SELECT \(columns) FROM \(table.name) ORDER BY \(table.key)")
        let count = table.columns.count
        try statement.forEachRow { row in
            try body((0..<count).map { row.optionalString($0) })
        }
    }
}

extension MirrorStore: MirrorCopyDestination {
    public func heldCounts() throws -> (repositories: Int, commits: Int) {
        (try db.scalarInt("SELECT count(*) FROM repositories") ?? 0, try db.scalarInt("SELECT count(*) FROM commits") ?? 0)
    }

    public func loading(_ body: () throws -> Void) throws {
        try write {
            // The migration's own counter row gives way to the source's.
            try db.execute("DELETE FROM change_counter")
            try body()
            // Derived: the message index (the per-author counts followed the inserts' triggers).
            try db.execute("INSERT INTO commits_fts (commits_fts) VALUES ('rebuild')")
            try db.execute("UPDATE message_index_coverage SET through_id = (SELECT coalesce(max(id), 0) FROM commits)")
        }
    }

    public func load(_ rows: [[String?]], into table: MirrorTable) throws {
        let placeholders = Array(repeating: "?", count: table.columns.count).joined(separator: ", ")
        let insert = try db.cachedStatement("INSERT INTO \(table.name) (\(table.columnList)) VALUES (\(placeholders))")
        let bytes = table.columns.map { $0.kind == .bytes }
        for row in rows {
            // Text into integer columns: SQLite's column affinity stores them as integers; bytes go as blobs.
            let values = zip(row, bytes).map { value, isBytes -> any SQLiteBindable in
                guard isBytes else { return value }
                return value.map { SQLiteValue.blob(FileChange.bytes(hexDigits: $0)) }
            }
            try insert.bind(values).run()
        }
    }
}
