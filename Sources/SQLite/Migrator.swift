/// Numbered schema migrations, recorded in the database file itself.
///
/// Each pending migration runs in its own `BEGIN IMMEDIATE` transaction together
/// with the row that records it, so a store is never left half-migrated and two
/// processes starting together cannot both apply the same migration.
public struct Migrator: Sendable {
    public struct Migration: Sendable {
        public let version: Int
        public let name: String
        public let sql: String

        public init(version: Int, name: String, sql: String) {
            self.version = version
            self.name = name
            self.sql = sql
        }
    }

    public enum MigrationError: Error, Sendable, CustomStringConvertible {
        /// The file was written by a newer program that knows more migrations.
        case newerSchema(found: Int, known: Int)

        public var description: String {
            switch self {
            case .newerSchema(let found, let known):
                return "the store has schema version \(found) but this program knows only up to \(known); upgrade commits-mirror (the store was left untouched)"
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
        let hasTable = try connection.scalarInt(
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

    /// Applies every pending migration, each in its own transaction.
    /// Returns the versions applied by this call.
    @discardableResult
    public func migrate(_ connection: Connection) throws -> [Int] {
        guard try !pendingMigrations(in: connection).isEmpty else { return [] }
        try connection.execute("""
            CREATE TABLE IF NOT EXISTS schema_migrations (
                version INTEGER PRIMARY KEY,
                name TEXT NOT NULL,
                applied_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))
            )
            """)
        var applied: [Int] = []
        for migration in migrations {
            let didApply = try connection.transaction(.immediate) { () -> Bool in
                // Re-read under the write lock: another process may have just migrated.
                let current = try appliedVersion(in: connection)
                if current > latestVersion { throw MigrationError.newerSchema(found: current, known: latestVersion) }
                guard migration.version > current else { return false }
                try connection.executeScript(migration.sql)
                try connection.execute(
                    "INSERT INTO schema_migrations (version, name) VALUES (?, ?)",
                    [migration.version, migration.name])
                return true
            }
            if didApply { applied.append(migration.version) }
        }
        return applied
    }
}
