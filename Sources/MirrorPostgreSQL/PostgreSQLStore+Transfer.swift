import MirrorBookkeeping
import MirrorCore
import PostgreSQL
import Foundation

// The PostgreSQL store as copy-store's source (one REPEATABLE READ, READ ONLY
// snapshot on a connection of its own) and destination (COPY per table, in
// one transaction, ids kept and the identity sequences moved past them).

/// A read-only view of a PostgreSQL store for copying it out.
final class PostgreSQLSnapshotSource: MirrorSnapshotSource {
    private let connection: PostgreSQLConnection

    init(uri: String, password: String?) throws {
        connection = try StoreSession.connect(
            uri: uri, password: password, applicationName: "commits-mirror copy-store", idleInTransaction: nil)
        try PostgreSQLMigrator.verify(connection, location: uri)
    }

    func withSnapshot<T>(_ body: () throws -> T) throws -> T {
        try connection.transaction(.readOnlySnapshot, body)
    }

    func forEachRow(of table: MirrorTable, _ body: ([String?]) throws -> Void) throws {
        let columns = table.columns.map { column in
            switch column.kind {
            case .flag: "\(column.name)::int"
            case .bytes: "encode(\(column.name), 'hex')"
            case .text, .integer: column.name
            }
        }.joined(separator: ", ")
        // COLLATE "C": text keys in byte order, as SQLite reads them.
        let key = table.key.split(separator: ",").map { "\($0.trimmingCharacters(in: .whitespaces)) COLLATE \"C\"" }
        let order = table.key.split(separator: ",").enumerated().map { index, column in
            table.columns.first { $0.name == column.trimmingCharacters(in: .whitespaces) }?.kind == .text ? key[index] : String(column)
        }
        try connection.forEachRow("SELECT \(columns) FROM \(table.name) ORDER BY \(order.joined(separator: ", "))") { row in
            try body((0..<table.columns.count).map { row.string(0, $0) })
        }
    }
}

extension PostgreSQLStore: MirrorCopyDestination {
    public func heldCounts() throws -> (repositories: Int, commits: Int) {
        (
            try connection.execute("SELECT count(*) FROM repositories").int(0, 0) ?? 0,
            try connection.execute("SELECT count(*) FROM commits").int(0, 0) ?? 0
        )
    }

    public func loading(_ body: () throws -> Void) throws {
        try connection.transaction {
            // The migration's own counter row gives way to the source's.
            try connection.execute("DELETE FROM change_counter")
            try body()
            // Ids were copied as they were: new rows take numbers after them.
            for table in ["repositories", "authors", "commits", "repository_branches", "sync_walks", "paths", "tags"] {
                try connection.execute(
                    "SELECT setval(pg_get_serial_sequence($1, 'id'), coalesce((SELECT max(id) FROM \(table)), 0) + 1, false)",
                    [table])
            }
        }
    }

    public func load(_ rows: [[String?]], into table: MirrorTable) throws {
        // COPY reads "0"/"1" as booleans and `\x` and hex digits as bytea; text is passed through COPY's escaping.
        let bytes = table.columns.map { $0.kind == .bytes }
        let storable = rows.lazy.map { row in
            zip(row, bytes).map { value, isBytes in value.map { isBytes ? "\\x" + $0 : PageStaging.storable($0) } }
        }
        try connection.copyIn("COPY \(table.name) (\(table.columnList)) FROM STDIN", rows: storable)
    }
}
