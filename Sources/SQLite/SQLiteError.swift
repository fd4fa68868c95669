import CSQLite

/// A failed SQLite call: the extended result code, SQLite's message, and the
/// SQL being run when it failed (if any).
public struct SQLiteError: Error, Sendable, CustomStringConvertible {
    public let code: ResultCode
    public let message: String
    public let sql: String?

    public init(code: ResultCode, message: String, sql: String? = nil) {
        self.code = code
        self.message = message
        self.sql = sql
    }

    init(code: Int32, connection: OpaquePointer?, sql: String? = nil) {
        let message =
            connection.map { String(cString: sqlite3_errmsg($0)) }
            ?? String(cString: sqlite3_errstr(code))
        self.init(code: ResultCode(rawValue: code), message: message, sql: sql)
    }

    public var description: String {
        var text = "SQLite error \(code.rawValue) (\(code.name)): \(message)"
        if let sql { text += " — while executing: \(sql)" }
        return text
    }
}

/// An SQLite result code, primary or extended. `ResultCode.SQLITE_BUSY ~= code`
/// matches extended codes (e.g. SQLITE_BUSY_SNAPSHOT) by their primary code.
public struct ResultCode: RawRepresentable, Sendable, Hashable {
    public let rawValue: Int32
    public init(rawValue: Int32) { self.rawValue = rawValue }

    public var primary: ResultCode { ResultCode(rawValue: rawValue & 0xFF) }
    public var name: String { String(cString: sqlite3_errstr(rawValue)) }

    public static let SQLITE_OK = ResultCode(rawValue: CSQLite.SQLITE_OK)
    public static let SQLITE_ERROR = ResultCode(rawValue: CSQLite.SQLITE_ERROR)
    public static let SQLITE_BUSY = ResultCode(rawValue: CSQLite.SQLITE_BUSY)
    public static let SQLITE_LOCKED = ResultCode(rawValue: CSQLite.SQLITE_LOCKED)
    public static let SQLITE_READONLY = ResultCode(rawValue: CSQLite.SQLITE_READONLY)
    /// The directory holding the database is not writable (no `-wal`/`-shm` can be created).
    public static let SQLITE_READONLY_DIRECTORY = ResultCode(rawValue: CSQLite.SQLITE_READONLY | (6 << 8))
    public static let SQLITE_IOERR = ResultCode(rawValue: CSQLite.SQLITE_IOERR)
    public static let SQLITE_CORRUPT = ResultCode(rawValue: CSQLite.SQLITE_CORRUPT)
    public static let SQLITE_FULL = ResultCode(rawValue: CSQLite.SQLITE_FULL)
    public static let SQLITE_CANTOPEN = ResultCode(rawValue: CSQLite.SQLITE_CANTOPEN)
    public static let SQLITE_CONSTRAINT = ResultCode(rawValue: CSQLite.SQLITE_CONSTRAINT)
    public static let SQLITE_NOTADB = ResultCode(rawValue: CSQLite.SQLITE_NOTADB)

    /// Primary-code match: `case .SQLITE_BUSY:` also catches SQLITE_BUSY_RECOVERY etc.
    public static func ~= (pattern: ResultCode, code: ResultCode) -> Bool {
        pattern.rawValue == code.rawValue || pattern.rawValue == code.primary.rawValue
    }
}
