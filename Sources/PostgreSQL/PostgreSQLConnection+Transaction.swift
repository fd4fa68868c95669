import CPostgreSQL

extension PostgreSQLConnection {
    /// Runs `body` in a transaction: committed when it returns, rolled back when it throws.
    ///
    /// A statement that failed inside `body` leaves the transaction aborted even
    /// if `body` caught the error; PostgreSQL would then answer COMMIT with a
    /// silent ROLLBACK, so that case throws instead of pretending it committed.
    public func transaction<T>(readOnly: Bool = false, _ body: () throws -> T) throws -> T {
        try execute(readOnly ? "BEGIN READ ONLY" : "BEGIN")
        do {
            let value = try body()
            guard cpq_transaction_status(rawConnection) == PQTRANS_INTRANS else {
                throw PostgreSQLError(
                    kind: .statement, sqlState: "25P02",
                    message: "a statement failed inside the transaction; it was rolled back", sql: "COMMIT")
            }
            try execute("COMMIT")
            return value
        } catch {
            if isHealthy && isInTransaction { _ = try? execute("ROLLBACK") }
            throw error
        }
    }

    /// Like `transaction`, run again (up to `attempts` times in all) when the server
    /// says it failed only because of other transactions: a serialization failure
    /// or a deadlock (SQLSTATE 40001, 40P01), which rolled back everything it did.
    public func retryingTransaction<T>(attempts: Int = 5, _ body: () throws -> T) throws -> T {
        var attempt = 1
        while true {
            do {
                return try transaction(body)
            } catch let error as PostgreSQLError where error.isRetryable && attempt < attempts {
                attempt += 1
            }
        }
    }
}
