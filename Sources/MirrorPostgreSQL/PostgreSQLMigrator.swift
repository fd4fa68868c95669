import MirrorCore
import PostgreSQL

/// Versioned, transactional migrations (PostgreSQL's DDL is transactional): each
/// runs whole or not at all, under an advisory lock so that several daemons
/// starting together migrate once. A schema newer than this program knows is
/// refused before anything is written.
enum PostgreSQLMigrator {
    /// pg_advisory_xact_lock's key for migrations: any constant no other lock uses.
    private static let lockKey: Int64 = 0x636F_6D6D_6974_7301

    static func migrate(_ connection: PostgreSQLConnection, location: String) throws {
        try connection.transaction {
            try connection.execute("SELECT pg_advisory_xact_lock($1)", [lockKey])
            try connection.execute(
                """
                CREATE TABLE IF NOT EXISTS commits_mirror_schema (
                    version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())
                """)
            let current = try appliedVersion(connection)
            guard current <= PostgreSQLSchema.latestVersion else {
                throw StoreError.newerSchema(path: location, found: current, known: PostgreSQLSchema.latestVersion)
            }
            for migration in PostgreSQLSchema.migrations where migration.version > current {
                try connection.executeScript(migration.sql)
                try connection.execute(
                    "INSERT INTO commits_mirror_schema (version, name) VALUES ($1, $2)", [migration.version, migration.name])
            }
        }
    }

    /// For readers, which never write: the schema must be there and current.
    /// One statement, since every reading command starts here: a database without
    /// the version table answers "undefined table" (SQLSTATE 42P01).
    static func verify(_ connection: PostgreSQLConnection, location: String) throws {
        let current: Int
        do {
            current = try appliedVersion(connection)
        } catch let error as PostgreSQLError where error.sqlState == "42P01" {
            throw StoreError.missing(path: location)
        }
        if current > PostgreSQLSchema.latestVersion {
            throw StoreError.newerSchema(path: location, found: current, known: PostgreSQLSchema.latestVersion)
        }
        if current < PostgreSQLSchema.latestVersion { throw StoreError.readOnlyNeedsMigration(path: location) }
    }

    private static func appliedVersion(_ connection: PostgreSQLConnection) throws -> Int {
        try connection.execute("SELECT coalesce(max(version), 0) FROM commits_mirror_schema").int(0, 0) ?? 0
    }
}
