import CPostgreSQL

extension PostgreSQLConnection {
    /// Sends `rows` to a `COPY … FROM STDIN` statement in text format and returns
    /// how many rows the server took. Either every row is copied or none (COPY is
    /// one statement); NULL is `nil`.
    @discardableResult
    public func copyIn(_ sql: String, rows: some Sequence<[String?]>) throws -> Int {
        let started = try checked(cpq_exec_params(rawConnection, sql, 0, nil, nil, nil, 0), sql: sql)
        guard cpq_result_status(started.rawResult) == PGRES_COPY_IN else {
            throw PostgreSQLError(kind: .statement, message: "not a COPY FROM STDIN statement", sql: sql)
        }
        var buffer: [UInt8] = []
        buffer.reserveCapacity(1 << 17)
        var sendFailure: PostgreSQLError?
        for row in rows {
            Self.appendCopyRow(row, to: &buffer)
            if buffer.count >= 1 << 16 {
                if let failure = send(&buffer, sql: sql) {
                    sendFailure = failure
                    break
                }
            }
        }
        if sendFailure == nil { sendFailure = send(&buffer, sql: sql) }
        // Ending the copy with an error message makes the server abandon it.
        _ = cpq_put_copy_end(rawConnection, sendFailure == nil ? nil : "client failed")
        var outcome: Result<Int, PostgreSQLError> = .success(0)
        while let raw = cpq_get_result(rawConnection) {
            let result = QueryResult(owning: raw)
            if cpq_result_status(raw) == PGRES_COMMAND_OK {
                if case .success = outcome { outcome = .success(result.affectedRows) }
            } else {
                outcome = .failure(PostgreSQLError(result: raw, connection: rawConnection, sql: sql))
            }
        }
        if let sendFailure { throw sendFailure }
        return try outcome.get()
    }

    private func send(_ buffer: inout [UInt8], sql: String) -> PostgreSQLError? {
        guard !buffer.isEmpty else { return nil }
        let sent = buffer.withUnsafeBufferPointer { bytes in
            bytes.withMemoryRebound(to: CChar.self) {
                cpq_put_copy_data(rawConnection, $0.baseAddress, Int32($0.count))
            }
        }
        buffer.removeAll(keepingCapacity: true)
        return sent == 1
            ? nil : PostgreSQLError(kind: .connection, message: String(cString: cpq_error_message(rawConnection)), sql: sql)
    }

    /// One row of COPY's text format: tab-separated, `\N` for NULL, and the
    /// format's escapes for backslash, tab, newline and carriage return.
    static func appendCopyRow(_ row: [String?], to buffer: inout [UInt8]) {
        for (index, field) in row.enumerated() {
            if index > 0 { buffer.append(UInt8(ascii: "\t")) }
            guard let field else {
                buffer.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "N")])
                continue
            }
            for byte in field.utf8 {
                switch byte {
                case UInt8(ascii: "\\"): buffer.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
                case UInt8(ascii: "\t"): buffer.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
                case UInt8(ascii: "\n"): buffer.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
                case UInt8(ascii: "\r"): buffer.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
                default: buffer.append(byte)
                }
            }
        }
        buffer.append(UInt8(ascii: "\n"))
    }
}
