extension Connection {
    public enum TransactionKind: String, Sendable {
        case deferred = "DEFERRED"
        /// Takes the write lock up front, so a busy writer surfaces at BEGIN
        /// (after the busy timeout), never halfway through the work.
        case immediate = "IMMEDIATE"
    }

    /// Runs `body` in a transaction: committed if it returns, rolled back if it throws.
    public func transaction<T>(_ kind: TransactionKind = .immediate, _ body: () throws -> T) throws -> T {
        try execute("BEGIN \(kind.rawValue) TRANSACTION")
        let result: T
        do {
            result = try body()
        } catch {
            if isInTransaction { try? execute("ROLLBACK TRANSACTION") }
            throw error
        }
        do {
            try execute("COMMIT TRANSACTION")
        } catch {
            if isInTransaction { try? execute("ROLLBACK TRANSACTION") }
            throw error
        }
        return result
    }
}
