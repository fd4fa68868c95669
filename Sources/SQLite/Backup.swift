import CSQLite

extension Connection {
    /// Copies this connection's main database into the file at `path` with
    /// SQLite's online backup API, as one consistent snapshot.
    ///
    /// The copy is taken in a single `sqlite3_backup_step(-1)`, which reads the
    /// source inside one read transaction: in WAL mode other connections keep
    /// writing meanwhile, and the copy holds exactly the commits that were
    /// visible when it started (or, when this connection is itself inside a
    /// transaction, exactly what that transaction sees). `path` is created if
    /// missing and its content replaced; callers pick a fresh path. On failure
    /// the file at `path` may be partly written, and the caller removes it.
    ///
    /// - SeeAlso: https://www.sqlite.org/backup.html
    public func backup(to path: String) throws {
        var destination: OpaquePointer?
        let openCode = sqlite3_open_v2(path, &destination, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nil)
        guard openCode == SQLITE_OK, let destination else {
            let error = SQLiteError(code: openCode, connection: destination)
            sqlite3_close_v2(destination)
            throw error
        }
        defer { sqlite3_close_v2(destination) }
        sqlite3_extended_result_codes(destination, 1)

        guard let backup = sqlite3_backup_init(destination, "main", rawConnection, "main") else {
            // The error is left on the destination handle.
            throw SQLiteError(code: sqlite3_extended_errcode(destination), connection: destination)
        }
        var stepCode = sqlite3_backup_step(backup, -1)
        // BUSY/LOCKED: another connection holds the destination (not the case for
        // a fresh file); wait for it up to about five seconds, like the busy timeout.
        var waits = 0
        while (stepCode == SQLITE_BUSY || stepCode == SQLITE_LOCKED || stepCode == SQLITE_OK) && waits < 500 {
            sqlite3_sleep(10)
            waits += 1
            stepCode = sqlite3_backup_step(backup, -1)
        }
        // finish releases the backup; the error, if any, is left on the destination handle.
        let finishCode = sqlite3_backup_finish(backup)
        guard stepCode == SQLITE_DONE, finishCode == SQLITE_OK else {
            let code = stepCode == SQLITE_DONE ? finishCode : stepCode
            throw SQLiteError(
                code: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(destination)),
                sql: "backup to \(path)")
        }
    }
}
