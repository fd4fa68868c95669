import CSQLite

/// A prepared statement. Finalized deterministically in `deinit`, so an early
/// exit (a thrown error, a `break` out of a row loop) never leaks it.
///
/// Not `Sendable`: it belongs to its connection's thread of use.
public final class Statement {
    private let rawStatement: OpaquePointer
    private let connection: OpaquePointer
    public let sql: String

    init(connection: OpaquePointer, sql: String) throws {
        var statement: OpaquePointer?
        let code = sqlite3_prepare_v3(connection, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard code == SQLITE_OK, let statement else {
            throw SQLiteError(code: code, connection: connection, sql: sql)
        }
        self.rawStatement = statement
        self.connection = connection
        self.sql = sql
    }

    deinit {
        sqlite3_finalize(rawStatement)
    }

    // MARK: - Binding

    /// Resets the statement and binds `values` to parameters 1...n.
    @discardableResult
    public func bind(_ values: [any SQLiteBindable]) throws -> Statement {
        reset()
        for (offset, value) in values.enumerated() {
            try bind(value.sqliteValue, at: Int32(offset + 1))
        }
        return self
    }

    /// Binds one value to the 1-based parameter `index`.
    public func bind(_ value: SQLiteValue, at index: Int32) throws {
        let code: Int32
        switch value {
        case .null: code = sqlite3_bind_null(rawStatement, index)
        case .integer(let v): code = sqlite3_bind_int64(rawStatement, index, v)
        case .real(let v): code = sqlite3_bind_double(rawStatement, index, v)
        case .text(let v):
            // The explicit byte count keeps text after a NUL (-1 would stop at the first one).
            var v = v
            code = v.withUTF8 { bytes in
                bytes.withMemoryRebound(to: CChar.self) { text in
                    // A nil pointer would bind NULL, not ''.
                    guard let start = text.baseAddress, !text.isEmpty else {
                        return sqlite3_bind_text(rawStatement, index, "", 0, csqlite_transient())
                    }
                    return sqlite3_bind_text64(
                        rawStatement, index, start, sqlite3_uint64(text.count),
                        csqlite_transient(), UInt8(SQLITE_UTF8))
                }
            }
        case .blob(let v):
            code = v.withUnsafeBytes {
                sqlite3_bind_blob(rawStatement, index, $0.baseAddress, Int32($0.count), csqlite_transient())
            }
        }
        guard code == SQLITE_OK else { throw SQLiteError(code: code, connection: connection, sql: sql) }
    }

    // MARK: - Stepping

    /// Advances to the next row. Returns `false` when the statement is done.
    public func step() throws -> Bool {
        switch sqlite3_step(rawStatement) {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        case let code:
            let error = SQLiteError(code: code, connection: connection, sql: sql)
            sqlite3_reset(rawStatement)
            throw error
        }
    }

    /// Runs the statement to completion, ignoring rows.
    public func run() throws {
        while try step() {}
    }

    /// Calls `body` once per row.
    public func forEachRow(_ body: (Statement) throws -> Void) throws {
        while try step() { try body(self) }
    }

    /// Collects one value per row.
    public func map<T>(_ transform: (Statement) throws -> T) throws -> [T] {
        var rows: [T] = []
        while try step() { rows.append(try transform(self)) }
        return rows
    }

    /// Steps once and transforms the row, or returns `nil` if there is none.
    public func first<T>(_ transform: (Statement) throws -> T) throws -> T? {
        defer { reset() }
        return try step() ? transform(self) : nil
    }

    /// Clears the running state so the statement can run again (bindings are kept).
    public func reset() {
        sqlite3_reset(rawStatement)
    }

    // MARK: - Columns (0-based)

    public var columnCount: Int { Int(sqlite3_column_count(rawStatement)) }
    /// How many parameters the statement takes (a named one used twice counts once).
    public var parameterCount: Int { Int(sqlite3_bind_parameter_count(rawStatement)) }

    public func columnName(_ index: Int) -> String {
        String(cString: sqlite3_column_name(rawStatement, Int32(index)))
    }

    public func isNull(_ index: Int) -> Bool {
        sqlite3_column_type(rawStatement, Int32(index)) == SQLITE_NULL
    }

    public func int(_ index: Int) -> Int {
        Int(sqlite3_column_int64(rawStatement, Int32(index)))
    }

    public func int64(_ index: Int) -> Int64 {
        sqlite3_column_int64(rawStatement, Int32(index))
    }

    public func double(_ index: Int) -> Double {
        sqlite3_column_double(rawStatement, Int32(index))
    }

    public func string(_ index: Int) -> String {
        guard let text = sqlite3_column_text(rawStatement, Int32(index)) else { return "" }
        let count = Int(sqlite3_column_bytes(rawStatement, Int32(index)))
        return String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)
    }

    public func optionalString(_ index: Int) -> String? {
        isNull(index) ? nil : string(index)
    }

    public func optionalInt(_ index: Int) -> Int? {
        isNull(index) ? nil : int(index)
    }

    public func value(_ index: Int) -> SQLiteValue {
        switch sqlite3_column_type(rawStatement, Int32(index)) {
        case SQLITE_INTEGER: return .integer(int64(index))
        case SQLITE_FLOAT: return .real(double(index))
        case SQLITE_TEXT: return .text(string(index))
        case SQLITE_BLOB:
            let count = Int(sqlite3_column_bytes(rawStatement, Int32(index)))
            guard let bytes = sqlite3_column_blob(rawStatement, Int32(index)) else { return .blob([]) }
            return .blob(Array(UnsafeRawBufferPointer(start: bytes, count: count)))
        default: return .null
        }
    }
}

@available(*, unavailable)
extension Statement: Sendable {}
