import CPostgreSQL

extension PostgreSQLConnection {
    /// Sends a script of statements that take no parameters and returns at once:
    /// the server runs it while this process goes on with other work.
    /// `awaitScript()` reads how it ended; until then the connection takes no
    /// other statement.
    ///
    /// A script with its own `BEGIN` … `COMMIT` ends on the server without any
    /// further word from the client, so nothing it locks waits on this process.
    public func sendScript(_ sql: String) throws {
        guard cpq_send_query(rawConnection, sql) == 1 else {
            throw PostgreSQLError(
                kind: .connection, message: String(cString: cpq_error_message(rawConnection)), sql: String(sql.prefix(200)))
        }
    }

    /// Waits for the script `sendScript` sent to end; throws its first failure
    /// (after a failure the server skipped the rest of the script).
    public func awaitScript() throws {
        var failure: PostgreSQLError?
        // Every result must be read, or the connection stays busy with the script.
        while let raw = cpq_get_result(rawConnection) {
            defer { cpq_clear(raw) }
            switch cpq_result_status(raw) {
            case PGRES_COMMAND_OK, PGRES_TUPLES_OK:
                continue
            default:
                if failure == nil { failure = PostgreSQLError(result: raw, connection: rawConnection, sql: nil) }
            }
        }
        if let failure { throw failure }
    }
}
