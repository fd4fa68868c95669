import MirrorBookkeeping
import MirrorCore
import SQLite

// The shared bookkeeping's session over an SQLite connection: its statements
// cached for the connection's lifetime, as the writer's own hot ones are.

extension Connection: SQLSession {
    @discardableResult
    public func run(_ sql: PortableSQL, _ values: [any SQLBindable]) throws -> Int {
        try cachedStatement(sql.sqlite).bind(values.map(\.sqlValue.sqlite)).run()
        return changes
    }

    public func rows<T>(_ sql: PortableSQL, _ values: [any SQLBindable], _ transform: (any SQLRow) throws -> T) throws -> [T] {
        try cachedStatement(sql.sqlite).bind(values.map(\.sqlValue.sqlite)).map { try transform(SQLiteRow(statement: $0)) }
    }

    public func forEachRow(_ sql: PortableSQL, _ values: [any SQLBindable], _ body: (any SQLRow) throws -> Void) throws {
        try cachedStatement(sql.sqlite).bind(values.map(\.sqlValue.sqlite)).forEachRow { try body(SQLiteRow(statement: $0)) }
    }
}

extension SQLValue {
    var sqlite: SQLiteValue {
        switch self {
        case .null: .null
        case .integer(let value): .integer(value)
        case .real(let value): .real(value)
        case .text(let value): .text(value)
        case .boolean(let value): .integer(value ? 1 : 0)
        }
    }
}

/// The row a statement stands on, read through the seam.
struct SQLiteRow: SQLRow {
    let statement: Statement

    func int64(_ column: Int) -> Int64? { statement.isNull(column) ? nil : statement.int64(column) }
    func string(_ column: Int) -> String? { statement.optionalString(column) }
    func bool(_ column: Int) -> Bool? { statement.isNull(column) ? nil : statement.int(column) != 0 }
}

extension MirrorStore: SQLBookkeeping, BranchListingRecords {
    public var session: Connection { db }
}
