/// A value bound to, or read from, an SQLite statement.
public enum SQLiteValue: Sendable, Equatable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])
}

/// Swift values that bind as SQL parameters.
public protocol SQLiteBindable {
    var sqliteValue: SQLiteValue { get }
}

extension Int: SQLiteBindable { public var sqliteValue: SQLiteValue { .integer(Int64(self)) } }
extension Int64: SQLiteBindable { public var sqliteValue: SQLiteValue { .integer(self) } }
extension Bool: SQLiteBindable { public var sqliteValue: SQLiteValue { .integer(self ? 1 : 0) } }
extension Double: SQLiteBindable { public var sqliteValue: SQLiteValue { .real(self) } }
extension String: SQLiteBindable { public var sqliteValue: SQLiteValue { .text(self) } }
extension Substring: SQLiteBindable { public var sqliteValue: SQLiteValue { .text(String(self)) } }
extension SQLiteValue: SQLiteBindable { public var sqliteValue: SQLiteValue { self } }
extension Optional: SQLiteBindable where Wrapped: SQLiteBindable {
    public var sqliteValue: SQLiteValue { self?.sqliteValue ?? .null }
}
