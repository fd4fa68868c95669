import CPostgreSQL

#if canImport(Glibc)
    import Glibc
#endif

/// One connection to a PostgreSQL server through libpq.
///
/// libpq's conventions all hold, because libpq itself reads them: `PGPASSFILE` /
/// `~/.pgpass`, `PGSERVICE`, `PGSSLMODE` and every other `PG*` variable,
/// `sslmode=verify-full` in the URI. Statements take bound parameters only.
/// Not `Sendable`: use a connection from one thread at a time (libpq's rule).
public final class PostgreSQLConnection {
    let rawConnection: OpaquePointer
    /// What the connection was opened with (the password among them, as libpq itself keeps it).
    private let parameters: [(String, String)]
    private var isClosed = false
    /// The statements `executePrepared` prepared on this connection: their names, by SQL text.
    private var preparedNames: [String: String] = [:]

    /// Connects to `uri` (`postgresql://…`, `postgres://…` or a `key=value`
    /// connection string). `password`, when given, wins over the URI and `.pgpass`:
    /// it is how a password read from a systemd credential reaches libpq without
    /// appearing in any string a user or a log sees. `settings` are server
    /// settings for the session (`lock_timeout` …), sent when it starts; those of
    /// `PGOPTIONS` and then of the URI's `options` come after them and win.
    public convenience init(
        uri: String, password: String? = nil, applicationName: String = "commits-mirror",
        connectTimeoutSeconds: Int = 10, settings: [(name: String, value: String)] = []
    ) throws {
        // Later entries win over earlier ones, and the expanded URI sits in the
        // middle: its own application_name and connect_timeout override our
        // defaults, and an explicit password overrides everything.
        var parameters: [(String, String)] = [
            ("application_name", applicationName),
            ("connect_timeout", String(connectTimeoutSeconds)),
        ]
        if let options = Self.options(settings) { parameters.append(("options", options)) }
        parameters.append(("dbname", uri))
        if let password { parameters.append(("password", password)) }
        try self.init(parameters: parameters)
    }

    /// Connects with libpq's `keyword=value` parameters, kept to open a side
    /// connection later (`lockHolders`).
    private init(parameters: [(String, String)]) throws {
        if let problem = cpq_load() {
            throw PostgreSQLError(kind: .libraryMissing, message: "libpq could not be loaded: \(String(cString: problem))")
        }
        let connection = withCStringArrays(parameters.map(\.0), parameters.map { $0.1 as String? }) {
            keywords, values in
            cpq_connectdb_params(keywords, values, 1)
        }
        guard let connection else {
            throw PostgreSQLError(kind: .connection, message: "libpq could not allocate a connection")
        }
        guard cpq_status(connection) == CONNECTION_OK else {
            let error = PostgreSQLError(kind: .connection, message: String(cString: cpq_error_message(connection)))
            cpq_finish(connection)
            throw error
        }
        self.rawConnection = connection
        self.parameters = parameters
    }

    deinit {
        close()
    }

    /// libpq's `options` for `settings`, followed by `PGOPTIONS` (which libpq
    /// itself reads only when no `options` are given), or `nil` for neither.
    static func options(_ settings: [(name: String, value: String)]) -> String? {
        guard !settings.isEmpty else { return nil }
        // In libpq's options a space separates arguments and a backslash escapes one.
        func escaped(_ text: String) -> String {
            var result = ""
            for character in text {
                if character == "\\" || character == " " { result.append("\\") }
                result.append(character)
            }
            return result
        }
        var arguments = settings.map { "-c \(escaped($0.name))=\(escaped($0.value))" }
        if let environment = getenv("PGOPTIONS"), environment.pointee != 0 { arguments.append(String(cString: environment)) }
        return arguments.joined(separator: " ")
    }

    /// Closes the connection; an open transaction is rolled back by the server.
    public func close() {
        guard !isClosed else { return }
        isClosed = true
        cpq_finish(rawConnection)
    }

    /// The server's version as libpq reports it (150018 for 15.18).
    public var serverVersion: Int { Int(cpq_server_version(rawConnection)) }

    /// The server process serving this connection (for `pg_terminate_backend` in tests and logs).
    public var backendPID: Int32 { cpq_backend_pid(rawConnection) }

    /// Whether the connection is still usable (false once the server went away).
    public var isHealthy: Bool { !isClosed && cpq_status(rawConnection) == CONNECTION_OK }

    /// Whether a transaction is open (or failed and awaiting ROLLBACK).
    public var isInTransaction: Bool {
        let status = cpq_transaction_status(rawConnection)
        return status == PQTRANS_INTRANS || status == PQTRANS_INERROR
    }

    /// A server setting reported at connection time (`server_version`, `TimeZone` …).
    public func parameterStatus(_ name: String) -> String? {
        cpq_parameter_status(rawConnection, name).map { String(cString: $0) }
    }

    /// Runs one statement with `parameters` bound to `$1`, `$2` … and returns its rows.
    @discardableResult
    public func execute(_ sql: String, _ parameters: [any PostgreSQLBindable] = []) throws -> QueryResult {
        let result = withParameters(parameters) { count, values in
            cpq_exec_params(rawConnection, sql, count, values, nil, nil, 0)
        }
        return try checked(result, sql: sql)
    }

    /// Runs one statement as `execute` does, prepared once on this connection:
    /// the server parses it once, and plans it once too unless what it reads
    /// changed (PostgreSQL replans a prepared statement whose tables were altered
    /// or analysed). For the statements a sync runs for every page; `sql` must be
    /// one of a fixed set (every value a bound parameter), as each text is kept
    /// for the connection's life. A prepared statement outlives a rolled-back
    /// transaction, so one that failed to prepare is simply prepared again.
    @discardableResult
    public func executePrepared(_ sql: String, _ parameters: [any PostgreSQLBindable] = []) throws -> QueryResult {
        let name = try preparedName(sql)
        let result = withParameters(parameters) { count, values in
            cpq_exec_prepared(rawConnection, name, count, values)
        }
        return try checked(result, sql: sql)
    }

    /// The name `sql` is prepared under on this connection, preparing it the first time.
    func preparedName(_ sql: String) throws -> String {
        if let prepared = preparedNames[sql] { return prepared }
        let name = "commits_mirror_\(preparedNames.count)"
        _ = try checked(cpq_prepare(rawConnection, name, sql), sql: sql)
        preparedNames[sql] = name
        return name
    }

    /// Runs a script of several statements that take no parameters (a migration).
    /// The statements run as one implicit transaction unless the script has its own.
    public func executeScript(_ sql: String) throws {
        _ = try checked(cpq_exec(rawConnection, sql), sql: String(sql.prefix(200)))
    }

    /// Runs one statement and hands its rows to `body` one at a time, as the server
    /// sends them (libpq's single-row mode): a large result is never held whole.
    public func forEachRow(
        _ sql: String, _ parameters: [any PostgreSQLBindable] = [], _ body: (QueryResult) throws -> Void
    ) throws {
        let sent = withParameters(parameters) { count, values in
            cpq_send_query_params(rawConnection, sql, count, values, nil, nil, 0)
        }
        guard sent == 1 else {
            throw PostgreSQLError(kind: .connection, message: String(cString: cpq_error_message(rawConnection)), sql: sql)
        }
        _ = cpq_set_single_row_mode(rawConnection)
        // Every result must be read, even after a failure or a throwing body, or
        // the connection stays busy with this statement.
        var failure: (any Error)?
        while let raw = cpq_get_result(rawConnection) {
            let result = QueryResult(owning: raw)
            guard failure == nil else { continue }
            switch cpq_result_status(raw) {
            case PGRES_SINGLE_TUPLE:
                do { try body(result) } catch { failure = error }
            case PGRES_TUPLES_OK, PGRES_COMMAND_OK:
                continue
            default:
                var error = PostgreSQLError(result: raw, connection: rawConnection, sql: sql)
                if error.isLockTimeout { error.lockHolders = lockHolders() }
                failure = error
            }
        }
        if let failure { throw failure }
    }

    func checked(_ raw: OpaquePointer?, sql: String) throws -> QueryResult {
        guard let raw else { throw PostgreSQLError(result: nil, connection: rawConnection, sql: sql) }
        let result = QueryResult(owning: raw)
        switch cpq_result_status(raw) {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_COPY_IN:
            return result
        default:
            var error = PostgreSQLError(result: raw, connection: rawConnection, sql: sql)
            if error.isLockTimeout { error.lockHolders = lockHolders() }
            throw error
        }
    }

    /// Who holds the strong table locks of this database, as `pid 123 (psql,
    /// idle in transaction) holds AccessExclusiveLock on commits`, asked on a
    /// side connection (this one may be inside the transaction the wait
    /// aborted); `nil` when none is seen or the server does not answer.
    func lockHolders() -> String? {
        var side = parameters.filter { $0.0 != "connect_timeout" && $0.0 != "options" }
        side.insert(("connect_timeout", "2"), at: 0)
        guard let connection = try? PostgreSQLConnection(parameters: side),
            let rows = try? connection.execute(Self.lockHoldersQuery, [cpq_backend_pid(rawConnection)])
        else { return nil }
        let holders = (0..<rows.count).map { row in
            "pid \(rows.string(row, 0) ?? "?") (\(rows.string(row, 1) ?? "?"), \(rows.string(row, 2) ?? "?")) holds "
                + "\(rows.string(row, 3) ?? "?") on \(rows.string(row, 4) ?? "?")"
        }
        return holders.isEmpty ? nil : holders.joined(separator: "; ")
    }

    /// The sessions other than `$1` and this one holding a lock that keeps writers (or readers) out of a table.
    static let lockHoldersQuery = """
        SELECT l.pid, coalesce(nullif(a.application_name, ''), a.backend_type, '?'), coalesce(a.state, '?'), l.mode, c.relname
        FROM pg_locks l JOIN pg_class c ON c.oid = l.relation
        LEFT JOIN pg_stat_activity a ON a.pid = l.pid
        WHERE l.granted AND l.locktype = 'relation' AND l.pid <> $1 AND l.pid <> pg_backend_pid()
            AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
            AND l.mode IN ('AccessExclusiveLock', 'ExclusiveLock', 'ShareRowExclusiveLock', 'ShareLock')
            AND c.relnamespace NOT IN (SELECT oid FROM pg_namespace WHERE nspname IN ('pg_catalog', 'information_schema'))
        ORDER BY l.pid, c.relname LIMIT 3
        """

    private func withParameters<T>(
        _ parameters: [any PostgreSQLBindable], _ body: (Int32, UnsafePointer<UnsafePointer<CChar>?>?) -> T
    ) -> T {
        withCStringArrays([], parameters.map(\.postgreSQLText)) { _, values in
            body(Int32(parameters.count), values)
        }
    }
}

/// `keywords` and `values` as NULL-terminated C string arrays for the duration of `body`.
func withCStringArrays<T>(
    _ keywords: [String], _ values: [String?],
    _ body: (UnsafePointer<UnsafePointer<CChar>?>?, UnsafePointer<UnsafePointer<CChar>?>?) -> T
) -> T {
    let keywordCopies: [UnsafeMutablePointer<CChar>?] = keywords.map { strdup($0) } + [nil]
    let valueCopies: [UnsafeMutablePointer<CChar>?] = values.map { $0.flatMap { strdup($0) } } + [nil]
    defer {
        keywordCopies.forEach { free($0) }
        valueCopies.forEach { free($0) }
    }
    let keywordPointers = keywordCopies.map { $0.map { UnsafePointer($0) } }
    let valuePointers = valueCopies.map { $0.map { UnsafePointer($0) } }
    return keywordPointers.withUnsafeBufferPointer { keywordBuffer in
        valuePointers.withUnsafeBufferPointer { valueBuffer in
            body(keywordBuffer.baseAddress, valueBuffer.baseAddress)
        }
    }
}
