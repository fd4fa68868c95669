import CSQLite

/// One SQLite database connection.
///
/// Opening configures what every connection of this project relies on and
/// verifies it: WAL journal mode (checked, not assumed), extended result codes
/// and a bounded busy timeout; a connection that writes also gets
/// `foreign_keys=ON` and `synchronous=NORMAL`.
/// Not `Sendable`: use a connection from one thread (or actor) at a time.
public final class Connection {
    public enum Mode: Sendable, Equatable {
        /// Read and write, creating the file if missing.
        case readWrite
        /// Read only; the file must exist. Readers never block the WAL writer.
        case readOnly
        /// Read only, whatever the file's journal mode, which is left as it is: for
        /// looking at a file before deciding to adopt it (nothing is written).
        case inspect
        /// A private temporary database (`path` must be ""): SQLite unlinks its
        /// file as it creates it, so nothing is left behind whatever ends the
        /// process. No journal and no syncs, for work that is thrown away on any
        /// failure. Pages beyond the cache spill to SQLite's temporary directory
        /// (`SQLITE_TMPDIR`, `TMPDIR`, /var/tmp or /tmp).
        case scratch(cacheBytes: Int)
    }

    let rawConnection: OpaquePointer
    public let path: String
    private var statementCache: [String: Statement] = [:]
    private var isClosed = false

    /// Opens (or with `.readWrite`, creates) the database at `path`.
    public init(path: String, mode: Mode = .readWrite, busyTimeout: Duration = .seconds(5)) throws {
        var connection: OpaquePointer?
        let flags: Int32 =
            switch mode {
            case .readWrite: SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
            case .readOnly, .inspect: SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX
            case .scratch: SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
            }
        if case .scratch = mode { precondition(path.isEmpty, "a scratch database has no path") }
        let code = sqlite3_open_v2(path, &connection, flags, nil)
        guard code == SQLITE_OK, let connection else {
            let error = SQLiteError(code: code, connection: connection)
            // A failed open may still allocate a handle; it must be closed.
            sqlite3_close_v2(connection)
            throw error
        }
        self.rawConnection = connection
        self.path = path
        do {
            try configure(mode: mode, busyTimeout: busyTimeout)
        } catch {
            sqlite3_close_v2(connection)
            isClosed = true
            throw error
        }
    }

    deinit {
        guard !isClosed else { return }
        statementCache.removeAll()
        // close_v2 defers the close until outstanding statements are finalized.
        sqlite3_close_v2(rawConnection)
    }

    private func configure(mode: Mode, busyTimeout: Duration) throws {
        sqlite3_extended_result_codes(rawConnection, 1)
        let milliseconds = Int32(
            busyTimeout.components.seconds * 1000
                + busyTimeout.components.attoseconds / 1_000_000_000_000_000)
        sqlite3_busy_timeout(rawConnection, milliseconds)
        // Reading the schema here turns "file is not a database" into an error at open time.
        switch mode {
        case .readWrite:
            try requireWAL(journalMode: try pragma("journal_mode = WAL"))
        case .readOnly:
            // Nothing to set: foreign keys and syncs only matter to a connection that writes.
            try requireWALJournal()
            return
        case .inspect:
            _ = try pragma("schema_version")
            return
        case .scratch(let cacheBytes):
            try execute("PRAGMA journal_mode = OFF")
            try execute("PRAGMA synchronous = OFF")
            // Negative: a size in KiB rather than in pages. Also bounds the sorters and the temporary b-trees.
            try execute("PRAGMA cache_size = -\(max(cacheBytes / 1024, 64))")
            try execute("PRAGMA temp_store = FILE")
            return
        }
        try execute("PRAGMA foreign_keys = ON")
        try execute("PRAGMA synchronous = NORMAL")
        // Keep -wal and -shm when the last writer closes: a reader that may not
        // create files in the store's directory (a member of the service's group)
        // can then still open the store read-only while no writer runs.
        var persist: Int32 = 1
        sqlite3_file_control(rawConnection, "main", SQLITE_FCNTL_PERSIST_WAL, &persist)
    }

    /// Throws unless the file is in WAL journal mode, as every store file is: what a
    /// `.readOnly` connection checks on opening, and what an `.inspect` one that
    /// decided to read on checks before it does (one connection, one schema read).
    public func requireWALJournal() throws {
        try requireWAL(journalMode: try pragma("journal_mode"))
    }

    private func requireWAL(journalMode: String) throws {
        guard journalMode.lowercased() == "wal" else {
            throw SQLiteError(
                code: .SQLITE_ERROR,
                message: "could not enable WAL journal mode (got \(journalMode)); is the file on a network file system?",
                sql: "PRAGMA journal_mode = WAL")
        }
    }

    /// Closes the connection. Throws if statements are still alive elsewhere.
    public func close() throws {
        guard !isClosed else { return }
        statementCache.removeAll()
        let code = sqlite3_close(rawConnection)
        guard code == SQLITE_OK else {
            throw SQLiteError(code: code, connection: rawConnection)
        }
        isClosed = true
    }

    // MARK: - Statements

    /// Compiles a statement owned by the caller.
    public func prepare(_ sql: String) throws -> Statement {
        try Statement(connection: rawConnection, sql: sql)
    }

    /// A compiled statement kept for the connection's lifetime; for hot paths.
    /// Callers must not keep it past the next call with the same SQL.
    public func cachedStatement(_ sql: String) throws -> Statement {
        if let statement = statementCache[sql] {
            statement.reset()
            return statement
        }
        let statement = try prepare(sql)
        statementCache[sql] = statement
        return statement
    }

    /// Runs one statement with bound parameters, ignoring any rows.
    public func execute(_ sql: String, _ arguments: [any SQLiteBindable] = []) throws {
        try prepare(sql).bind(arguments).run()
    }

    /// Runs a script of several statements without parameters (migrations).
    public func executeScript(_ sql: String) throws {
        var errorMessage: UnsafeMutablePointer<CChar>?
        let code = sqlite3_exec(rawConnection, sql, nil, nil, &errorMessage)
        guard code == SQLITE_OK else {
            let message = errorMessage.map { String(cString: $0) } ?? String(cString: sqlite3_errstr(code))
            sqlite3_free(errorMessage)
            throw SQLiteError(
                code: ResultCode(rawValue: sqlite3_extended_errcode(rawConnection)),
                message: message, sql: sql)
        }
    }

    /// The first column of the first row, as text (for PRAGMAs and scalar checks).
    public func pragma(_ body: String) throws -> String {
        try prepare("PRAGMA \(body)").first { $0.string(0) } ?? ""
    }

    /// The first column of the first row as an integer, or `nil` when there is no row.
    public func scalarInt(_ sql: String, _ arguments: [any SQLiteBindable] = []) throws -> Int? {
        try prepare(sql).bind(arguments).first { $0.optionalInt(0) } ?? nil
    }

    // MARK: - Functions

    /// A SQL function written in C, as SQLite calls it (`xFunc` of `sqlite3_create_function_v2`).
    public typealias CFunction = @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void

    /// Adds `name` to this connection's SQL: a deterministic function of its
    /// `argumentCount` arguments that touches nothing but them (SQLite may then
    /// call it from any statement, index expressions and views included).
    public func addFunction(_ name: String, argumentCount: Int32, _ function: CFunction) throws {
        let flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS
        let code = sqlite3_create_function_v2(rawConnection, name, argumentCount, flags, nil, function, nil, nil, nil)
        guard code == SQLITE_OK else { throw SQLiteError(code: code, connection: rawConnection) }
    }

    // MARK: - State

    public var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(rawConnection) }
    /// Rows changed by the most recent INSERT/UPDATE/DELETE.
    public var changes: Int { Int(sqlite3_changes(rawConnection)) }
    public var isInTransaction: Bool { sqlite3_get_autocommit(rawConnection) == 0 }
}

@available(*, unavailable)
extension Connection: Sendable {}
