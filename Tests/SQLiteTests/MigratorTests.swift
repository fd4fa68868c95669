import MirrorTestSupport
import SQLite
import Testing

@Suite struct MigratorTests {
    let migrator = Migrator([
        .init(version: 1, name: "one", sql: "CREATE TABLE a (x INTEGER);"),
        .init(version: 2, name: "two", sql: "CREATE TABLE b (y INTEGER); CREATE INDEX b_y ON b (y);"),
    ])

    @Test func appliesPendingMigrationsOnceAndRecordsThem() throws {
        let directory = try TemporaryDirectory()
        let db = try Connection(path: directory.path("m.sqlite"))
        #expect(try migrator.migrate(db) == [1, 2])
        #expect(try migrator.migrate(db) == [])
        #expect(try migrator.appliedVersion(in: db) == 2)
        #expect(try db.scalarInt("SELECT count(*) FROM schema_migrations") == 2)
    }

    @Test func aFailingMigrationLeavesNoTraceOfItself() throws {
        let directory = try TemporaryDirectory()
        let db = try Connection(path: directory.path("m.sqlite"))
        try Migrator([migrator.migrations[0]]).migrate(db)
        let broken = Migrator([
            migrator.migrations[0],
            .init(version: 2, name: "broken", sql: "CREATE TABLE c (z INTEGER); THIS IS NOT SQL;"),
        ])
        #expect(throws: SQLiteError.self) { try broken.migrate(db) }
        #expect(try migrator.appliedVersion(in: db) == 1)
        #expect(try db.scalarInt("SELECT count(*) FROM sqlite_master WHERE name = 'c'") == 0)
    }

    @Test func refusesAStoreFromANewerSchema() throws {
        let directory = try TemporaryDirectory()
        let db = try Connection(path: directory.path("m.sqlite"))
        try migrator.migrate(db)
        let older = Migrator([migrator.migrations[0]])
        #expect(throws: Migrator.MigrationError.self) { try older.migrate(db) }
        #expect(try migrator.appliedVersion(in: db) == 2)
    }
}
