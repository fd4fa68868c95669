import MirrorTestSupport
import SQLite
import Testing

/// All pending migrations run in one transaction, with a hook before them for
/// a backup of exactly the state being upgraded.
@Suite struct MigratorUpgradeTests {
    let one = Migrator.Migration(version: 1, name: "one", sql: "CREATE TABLE a (x INTEGER); INSERT INTO a VALUES (1);")
    let two = Migrator.Migration(version: 2, name: "two", sql: "CREATE TABLE b (y INTEGER);")
    let three = Migrator.Migration(version: 3, name: "three", sql: "CREATE INDEX b_y ON b (y);")

    @Test func aFailureInALaterMigrationRollsBackTheEarlierOnesOfTheSameRun() throws {
        let directory = try TemporaryDirectory()
        let db = try Connection(path: directory.path("m.sqlite"))
        try Migrator([one]).migrate(db)
        let broken = Migrator([one, two, .init(version: 3, name: "broken", sql: "CREATE INDEX nope ON no_such_table (z);")])
        #expect(throws: SQLiteError.self) { try broken.migrate(db) }
        #expect(try broken.appliedVersion(in: db) == 1)
        #expect(try db.scalarInt("SELECT count(*) FROM sqlite_master WHERE name = 'b'") == 0, "migration 2 rolled back too")
        #expect(try Migrator([one, two, three]).migrate(db) == [2, 3])
    }

    @Test func prepareRunsOnceWithTheVersionBeingUpgradedAndOnlyWhenSomethingIsPending() throws {
        let directory = try TemporaryDirectory()
        let db = try Connection(path: directory.path("m.sqlite"))
        var seen: [Int] = []
        #expect(try Migrator([one]).migrate(db) { seen.append($0) } == [1])
        #expect(try Migrator([one, two, three]).migrate(db) { seen.append($0) } == [2, 3])
        #expect(try Migrator([one, two, three]).migrate(db) { seen.append($0) } == [])
        #expect(seen == [0, 1])
    }

    @Test func aThrowingPrepareAppliesNothing() throws {
        struct NoBackup: Error {}
        let directory = try TemporaryDirectory()
        let db = try Connection(path: directory.path("m.sqlite"))
        try Migrator([one]).migrate(db)
        #expect(throws: NoBackup.self) { try Migrator([one, two]).migrate(db) { _ in throw NoBackup() } }
        #expect(try Migrator([one]).appliedVersion(in: db) == 1)
        #expect(try db.scalarInt("SELECT count(*) FROM sqlite_master WHERE name = 'b'") == 0)
    }

    @Test func prepareRunsUnderTheWriteLock() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("m.sqlite")
        let db = try Connection(path: path)
        try Migrator([one]).migrate(db)
        let other = try Connection(path: path, busyTimeout: .milliseconds(50))
        try Migrator([one, two]).migrate(db) { _ in
            // Nobody else can write between the backup and the migrations.
            let error = #expect(throws: SQLiteError.self) { try other.execute("INSERT INTO a VALUES (2)") }
            #expect(error.map { ResultCode.SQLITE_BUSY ~= $0.code } == true)
        }
    }
}
