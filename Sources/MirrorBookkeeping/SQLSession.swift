/// A value bound to a statement's parameter: what the shared bookkeeping binds,
/// which each backend turns into its wrapper's own binding.
public enum SQLValue: Sendable, Equatable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case boolean(Bool)
}

/// Swift values the shared bookkeeping binds.
public protocol SQLBindable {
    var sqlValue: SQLValue { get }
}

extension Int: SQLBindable { public var sqlValue: SQLValue { .integer(Int64(self)) } }
extension Int64: SQLBindable { public var sqlValue: SQLValue { .integer(self) } }
extension Bool: SQLBindable { public var sqlValue: SQLValue { .boolean(self) } }
extension String: SQLBindable { public var sqlValue: SQLValue { .text(self) } }
extension SQLValue: SQLBindable { public var sqlValue: SQLValue { self } }
extension Optional: SQLBindable where Wrapped: SQLBindable {
    public var sqlValue: SQLValue { self?.sqlValue ?? .null }
}

/// One row of a statement's answer, read by column (0-based); `nil` for NULL.
public protocol SQLRow {
    func int64(_ column: Int) -> Int64?
    func string(_ column: Int) -> String?
    func bool(_ column: Int) -> Bool?
}

extension SQLRow {
    public func int(_ column: Int) -> Int? { int64(column).map(Int.init) }
}

/// A statement as each backend spells it. Written once with `?` (or `?N`)
/// parameters, SQLite's spelling, and rendered with `$N` for PostgreSQL when it
/// is made, so a statement kept in a `static let` is rendered once.
public struct PortableSQL: Sendable {
    public let sqlite: String
    public let postgreSQL: String

    public init(_ text: String) {
        sqlite = text
        postgreSQL = Self.numberingParameters(text)
    }

    /// A statement whose dialects differ beyond their parameters (case folding,
    /// conflict targets, collations).
    public init(sqlite: String, postgreSQL: String) {
        self.sqlite = sqlite
        self.postgreSQL = postgreSQL
    }

    /// `?N` becomes `$N`, and each bare `?` the next number after the highest
    /// one so far, as SQLite numbers them.
    static func numberingParameters(_ text: String) -> String {
        var rendered = ""
        var highest = 0
        var characters = text[...]
        while let mark = characters.firstIndex(of: "?") {
            rendered += characters[..<mark]
            let digits = characters[characters.index(after: mark)...].prefix(while: \.isASCIIDigit)
            let number = Int(digits) ?? highest + 1
            highest = max(highest, number)
            rendered += "$\(number)"
            characters = characters[digits.endIndex...]
        }
        return rendered + characters
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}

/// What the shared bookkeeping needs of a connection: statements with bound
/// values and their rows (the write transaction is the store's own,
/// `SQLBookkeeping.write`). Each backend implements it over its own wrapper;
/// the page write path does not go through it, so nothing here is paid per
/// stored commit.
public protocol SQLSession: AnyObject {
    /// Runs `sql`; returns how many rows it changed.
    @discardableResult
    func run(_ sql: PortableSQL, _ values: [any SQLBindable]) throws -> Int
    /// Runs `sql` and maps each row of its answer.
    func rows<T>(_ sql: PortableSQL, _ values: [any SQLBindable], _ transform: (any SQLRow) throws -> T) throws -> [T]
    /// Runs `sql` and hands each row of its answer to `body` as it comes, keeping none.
    func forEachRow(_ sql: PortableSQL, _ values: [any SQLBindable], _ body: (any SQLRow) throws -> Void) throws
}

extension SQLSession {
    public func forEachRow(_ sql: PortableSQL, _ values: [any SQLBindable], _ body: (any SQLRow) throws -> Void) throws {
        _ = try rows(sql, values, body)
    }

    /// The first row's mapping, or `nil` when the answer is empty.
    public func firstRow<T>(_ sql: PortableSQL, _ values: [any SQLBindable], _ transform: (any SQLRow) throws -> T) throws -> T? {
        try rows(sql, values, transform).first
    }

    /// The first column of the first row as an integer.
    public func scalarInt(_ sql: PortableSQL, _ values: [any SQLBindable]) throws -> Int? {
        try firstRow(sql, values) { $0.int(0) } ?? nil
    }
}
