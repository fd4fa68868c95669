/// Numbered schema migrations, recorded in the database file itself.
///
/// Every pending migration runs in one `BEGIN IMMEDIATE` transaction together
/// with the rows that record them, so an upgrade either completes or leaves the
/// file exactly as it was (never half-migrated, even across several versions),
/// and two processes starting together cannot both apply the same migration.
public struct Migrator: Sendable {
    public struct Migration: Sendable {
        public let version: Int
        public let name: String
        public let sql: String
        /// Runs after `sql`, in the same transaction: data a migration derives
        /// with program logic SQL does not have (e.g. back-filling a parsed column).
        public let backfill: (@Sendable (Connection) throws -> Void)?

        public init(version: Int, name: String, sql: String, backfill: (@Sendable (Connection) throws -> Void)? = nil) {
            self.version = version
            self.name = name
            self.sql = sql
            self.backfill = backfill
        }
    }

    public enum MigrationError: Error, Sendable, CustomStringConvertible {
        /// The file was written by a newer program that knows more migrations.
        case newerSchema(found: Int, known: Int)

        public var description: String {
            switch self {
            case .newerSchema(let found, let known):
                return
                    "the store has schema version \(found) but this program knows only up to \(known); upgrade commits-mirror (the store was left untouched)"
            }
        }
    }

    public let migrations: [Migration]

    public init(_ migrations: [Migration]) {
        precondition(migrations.map(\.version) == migrations.map(\.version).sorted(), "migrations must be in order")
        precondition(Set(migrations.map(\.version)).count == migrations.count, "migration versions must be unique")
        self.migrations = migrations
    }

    public var latestVersion: Int { migrations.last?.version ?? 0 }

    /// The highest applied version, or 0 for a new file. Does not write.
    public func appliedVersion(in connection: Connection) throws -> Int {
        let hasTable =
            try connection.scalarInt(
                "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'") ?? 0
        guard hasTable > 0 else { return 0 }
        return try connection.scalarInt("SELECT max(version) FROM schema_migrations") ?? 0
    }

    /// Migrations not yet applied to this file.
    public func pendingMigrations(in connection: Connection) throws -> [Migration] {
        let applied = try appliedVersion(in: connection)
        if applied > latestVersion { throw MigrationError.newerSchema(found: applied, known: latestVersion) }
        return migrations.filter { $0.version > applied }
    }

    /// Applies every pending migration in one transaction; returns the versions
    /// applied by this call (empty when the file was already up to date).
    ///
    /// `prepare` runs first inside that transaction, under the write lock and
    /// only when something is pending, with the version the file is at (0 for
    /// a new file): the place for a backup of exactly the state being upgraded.
    /// If it or any migration throws, everything is rolled back.
    @discardableResult
    public func migrate(_ connection: Connection, prepare: (_ fromVersion: Int) throws -> Void = { _ in }) throws -> [Int] {
        guard try !pendingMigrations(in: connection).isEmpty else { return [] }
        return try connection.transaction(.immediate) { () -> [Int] in
            // Re-read under the write lock: another process may have just migrated.
            let current = try appliedVersion(in: connection)
            if current > latestVersion { throw MigrationError.newerSchema(found: current, known: latestVersion) }
            let pending = migrations.filter { $0.version > current }
            guard !pending.isEmpty else { return [] }
            try prepare(current)
            try connection.execute(
                """
                CREATE TABLE IF NOT EXISTS schema_migrations (
                    version INTEGER PRIMARY KEY,
                    name TEXT NOT NULL,
                    applied_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))
                )
                """)
            for migration in pending {
                try connection.executeScript(migration.sql)
                try migration.backfill?(connection)
                try connection.execute(
                    "INSERT INTO schema_migrations (version, name) VALUES (?, ?)",
                    [migration.version, migration.name])
            }
            return pending.map(\.version)
        }
    }
}
