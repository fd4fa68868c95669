import MirrorCore
import MirrorPostgreSQL
import MirrorSQLite

/// Registers both store drivers, as each executable's `main` does, for tests
/// that open a store through a `StoreLocation` in-process (a sync, a discovery,
/// a copy, the store contract). Registering again replaces a driver with an equal one.
public enum TestStoreDrivers {
    public static func register() {
        StoreDrivers.register(sqlite: SQLiteDriver())
        StoreDrivers.register(postgreSQL: PostgreSQLDriver())
        PackCommitIndexes.registerSQLite()
    }
}
