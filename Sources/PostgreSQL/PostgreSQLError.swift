import CPostgreSQL

/// A failed libpq call: the SQLSTATE when the server sent one, the server's (or
/// libpq's) message on one line, and the SQL being run, never its parameters —
/// those are the user's data and may be anything.
public struct PostgreSQLError: Error, Sendable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// libpq.so.5 could not be loaded.
        case libraryMissing
        /// The connection could not be made, or was lost.
        case connection
        /// The server refused or failed a statement.
        case statement
    }

    public let kind: Kind
    /// The five-character SQLSTATE (`40001`, `23505` …), when the server sent one.
    public let sqlState: String?
    public let message: String
    public let sql: String?
    /// For a lock wait that ran out: who holds the locks that kept it waiting, when seen.
    public internal(set) var lockHolders: String?

    public init(kind: Kind, sqlState: String? = nil, message: String, sql: String? = nil) {
        self.kind = kind
        self.sqlState = sqlState
        self.message = Self.oneLine(message)
        self.sql = sql
    }

    /// One line for a user: the SQLSTATE and the message. The statement stays in
    /// `sql`, for a debug log: a user's error line is not the place for SQL.
    public var description: String {
        var text = "PostgreSQL"
        if let sqlState { text += " error \(sqlState)" }
        text += ": \(message)"
        if let lockHolders { text += " (\(lockHolders))" }
        return text
    }

    /// The server cancelled the statement (SQLSTATE 57014): `statement_timeout`, or an operator's `pg_cancel_backend`.
    public var isCancelled: Bool { sqlState == "57014" }

    /// A lock another session holds outlasted `lock_timeout` (SQLSTATE 55P03, lock_not_available).
    public var isLockTimeout: Bool { sqlState == "55P03" }

    /// The server ended the session for sitting idle inside a transaction past
    /// `idle_in_transaction_session_timeout` (SQLSTATE 25P03).
    public var isIdleTransactionTimeout: Bool { sqlState == "25P03" }

    /// The server ran out of disk space (SQLSTATE 53100, disk_full).
    public var isDiskFull: Bool { sqlState == "53100" }

    /// The server refused a new connection: too many (SQLSTATE 53300).
    public var isTooManyConnections: Bool { sqlState == "53300" }

    /// A serialization failure or a deadlock: the transaction did nothing and may run again.
    public var isRetryable: Bool { sqlState == "40001" || sqlState == "40P01" }

    /// The connection is gone (lost, the server shut down or our backend was
    /// terminated): the open transaction rolled back, and a new connection is needed.
    public var isConnectionLost: Bool {
        if kind == .connection { return true }
        guard let sqlState else { return false }
        // 08: connection exception; 57P01–57P03: admin shutdown, crash shutdown, cannot connect now;
        // 25P03: ended for idling inside a transaction.
        return sqlState.hasPrefix("08") || ["57P01", "57P02", "57P03", "25P03"].contains(sqlState)
    }

    /// The store is a hot standby (SQLSTATE 25006, read-only SQL transaction).
    public var isReadOnlyTransaction: Bool { sqlState == "25006" }

    /// libpq's messages span lines ("connection to server … failed: FATAL: …\n");
    /// one line is what a log line or an error message can carry.
    static func oneLine(_ text: String) -> String {
        text.split(whereSeparator: \.isNewline)
            .map { $0.drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed() }
            .filter { !$0.isEmpty }
            .map { String($0) }
            .joined(separator: "; ")
    }
}

extension PostgreSQLError {
    init(result: OpaquePointer?, connection: OpaquePointer, sql: String?) {
        guard let result else {
            // No result at all: out of memory or the connection is gone.
            self.init(kind: .connection, message: String(cString: cpq_error_message(connection)), sql: sql)
            return
        }
        let sqlState = cpq_result_error_field(result, Int32(UInt8(ascii: "C"))).map { String(cString: $0) }
        let primary = cpq_result_error_field(result, Int32(UInt8(ascii: "M"))).map { String(cString: $0) }
        let message = primary ?? String(cString: cpq_result_error_message(result))
        let lost = sqlState == nil && cpq_status(connection) == CONNECTION_BAD
        self.init(kind: lost ? .connection : .statement, sqlState: sqlState, message: message, sql: sql)
    }
}
