/// A value bound to a statement parameter, sent in PostgreSQL's text format
/// (the server parses it as the parameter's inferred type). `nil` is SQL NULL.
public protocol PostgreSQLBindable {
    var postgreSQLText: String? { get }
}

extension String: PostgreSQLBindable {
    public var postgreSQLText: String? { self }
}

extension Substring: PostgreSQLBindable {
    public var postgreSQLText: String? { String(self) }
}

extension Int: PostgreSQLBindable {
    public var postgreSQLText: String? { String(self) }
}

extension Int64: PostgreSQLBindable {
    public var postgreSQLText: String? { String(self) }
}

extension Int32: PostgreSQLBindable {
    public var postgreSQLText: String? { String(self) }
}

extension Double: PostgreSQLBindable {
    public var postgreSQLText: String? { String(self) }
}

extension Bool: PostgreSQLBindable {
    public var postgreSQLText: String? { self ? "t" : "f" }
}

extension Optional: PostgreSQLBindable where Wrapped: PostgreSQLBindable {
    public var postgreSQLText: String? { self?.postgreSQLText }
}
