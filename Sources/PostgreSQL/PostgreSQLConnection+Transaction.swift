import CPostgreSQL

extension PostgreSQLConnection {
    /// How a transaction begins, said in its one `BEGIN` statement.
    public enum TransactionMode: Sendable {
        /// The server's default: read committed, read-write.
        case readWrite
        /// One snapshot for every statement (repeatable read), writes refused.
        case readOnlySnapshot

        var begin: String {
            switch self {
            case .readWrite: "BEGIN"
            case .readOnlySnapshot: "BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY"
            }
        }
    }

    /// Runs `body` in a transaction: committed when it returns, rolled back when it throws.
    ///
    /// A statement that failed inside `body` leaves the transaction aborted even
    /// if `body` caught the error; PostgreSQL would then answer COMMIT with a
    /// silent ROLLBACK, so that case throws instead of pretending it committed.
    public func transaction<T>(_ mode: TransactionMode = .readWrite, _ body: () throws -> T) throws -> T {
        try execute(mode.begin)
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
                return try transaction(.readWrite, body)
            } catch let error as PostgreSQLError where error.isRetryable && attempt < attempts {
                attempt += 1
            }
        }
    }
}
