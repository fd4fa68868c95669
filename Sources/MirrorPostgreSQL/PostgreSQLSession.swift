import MirrorBookkeeping
import MirrorCore
import PostgreSQL

// The shared bookkeeping's session over a libpq connection: `$N` parameters in
// text format, text made storable (PostgreSQL's text holds no NUL).

extension PostgreSQLConnection: SQLSession {
    @discardableResult
    public func run(_ sql: PortableSQL, _ values: [any SQLBindable]) throws -> Int {
        try execute(sql.postgreSQL, values.map(\.sqlValue.postgreSQL)).affectedRows
    }

    public func rows<T>(_ sql: PortableSQL, _ values: [any SQLBindable], _ transform: (any SQLRow) throws -> T) throws -> [T] {
        let result = try execute(sql.postgreSQL, values.map(\.sqlValue.postgreSQL))
        return try (0..<result.count).map { try transform(PostgreSQLRow(result: result, row: $0)) }
    }

    /// Row by row from the server (single-row mode), so a long answer is never held whole.
    public func forEachRow(_ sql: PortableSQL, _ values: [any SQLBindable], _ body: (any SQLRow) throws -> Void) throws {
        try forEachRow(sql.postgreSQL, values.map(\.sqlValue.postgreSQL)) { try body(PostgreSQLRow(result: $0, row: 0)) }
    }
}

extension SQLValue {
    var postgreSQL: any PostgreSQLBindable {
        switch self {
        case .null: String?.none
        case .integer(let value): value
        case .real(let value): value
        case .text(let value): PageStaging.storable(value)
        case .boolean(let value): value
        }
    }
}

/// One row of a result, read through the seam.
struct PostgreSQLRow: SQLRow {
    let result: QueryResult
    let row: Int

    func int64(_ column: Int) -> Int64? { result.int64(row, column) }
    func string(_ column: Int) -> String? { result.string(row, column) }
    func bool(_ column: Int) -> Bool? { result.bool(row, column) }
}

extension PostgreSQLStore: SQLBookkeeping {
    public var session: PostgreSQLConnection { connection }
}
