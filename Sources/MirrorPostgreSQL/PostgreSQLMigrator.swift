import MirrorCore
import PostgreSQL

/// Versioned, transactional migrations (PostgreSQL's DDL is transactional): each
/// runs whole or not at all, under an advisory lock so that several daemons
/// starting together migrate once. A schema newer than this program knows (a
/// version it has not heard of) is refused before anything is written.
///
/// Every version a database lacks is applied, in order, not only those above the
/// newest it has: versions written on separate lines of work (3, the branch
/// tables; 4, the leases) reach a database in whichever order they were merged.
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
            let applied = try appliedVersions(connection)
            try refuseUnknown(applied, location: location)
            for migration in PostgreSQLSchema.migrations.sorted(by: { $0.version < $1.version })
            where !applied.contains(migration.version) {
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
        let applied: Set<Int>
        do {
            applied = try appliedVersions(connection)
        } catch let error as PostgreSQLError where error.sqlState == "42P01" {
            throw StoreError.missing(path: location)
        }
        try refuseUnknown(applied, location: location)
        if !Set(PostgreSQLSchema.migrations.map(\.version)).isSubset(of: applied) {
            throw StoreError.readOnlyNeedsMigration(path: location)
        }
    }

    private static func appliedVersions(_ connection: PostgreSQLConnection) throws -> Set<Int> {
        let rows = try connection.execute("SELECT version FROM commits_mirror_schema")
        return Set((0..<rows.count).compactMap { rows.int($0, 0) })
    }

    /// A version this program does not know was written by a newer one.
    private static func refuseUnknown(_ applied: Set<Int>, location: String) throws {
        let unknown = applied.subtracting(PostgreSQLSchema.migrations.map(\.version))
        if let found = unknown.max() {
            throw StoreError.newerSchema(path: location, found: found, known: PostgreSQLSchema.latestVersion)
        }
    }
}
