import MirrorTestSupport
import Foundation
import SQLite
import Testing

@Suite struct ConnectionTests {
    let directory: TemporaryDirectory
    /// The database most tests open, new for each test.
    var path: String { directory.path("a.sqlite") }

    init() throws { directory = try TemporaryDirectory() }

    @Test func opensInWALModeWithForeignKeysAndNormalSync() throws {
        let db = try Connection(path: path)
        #expect(try db.pragma("journal_mode") == "wal")
        #expect(try db.pragma("foreign_keys") == "1")
        #expect(try db.pragma("synchronous") == "1")  // NORMAL
    }

    /// A read-only connection checks the journal mode and sets nothing (foreign
    /// keys and syncs are a writer's business); a file in another journal mode is
    /// refused by it, and by an inspecting connection only when asked to check.
    @Test func readOnlyConnectionsRequireWALAndLeaveTheWritersPragmas() throws {
        let wal = directory.path("wal.sqlite")
        try Connection(path: wal).execute("CREATE TABLE t (x INTEGER)")
        let reader = try Connection(path: wal, mode: .readOnly)
        #expect(try reader.pragma("journal_mode") == "wal")
        #expect(try reader.pragma("foreign_keys") == "0")
        try Connection(path: wal, mode: .inspect).requireWALJournal()

        let rollback = directory.path("rollback.sqlite")
        try ForeignDatabase.create(at: rollback, "CREATE TABLE t (x INTEGER)")
        #expect(throws: SQLiteError.self) { try Connection(path: rollback, mode: .readOnly) }
        let inspecting = try Connection(path: rollback, mode: .inspect)
        #expect(try inspecting.scalarInt("SELECT count(*) FROM t") == 0)
        #expect(throws: SQLiteError.self) { try inspecting.requireWALJournal() }
    }

    /// A scratch database that outgrew its cache spilled to a file SQLite had
    /// already unlinked: its pages are on disk, not in memory, and nothing is
    /// left behind, however the process ends.
    @Test func aScratchDatabaseSpillsToAnUnlinkedFile() throws {
        let db = try Connection(path: "", mode: .scratch(cacheBytes: 256 << 10))
        #expect(try db.pragma("journal_mode") == "off")
        #expect(try db.pragma("cache_size") == "-256")
        try db.execute("CREATE TABLE t (b BLOB)")
        try db.transaction {
            let insert = try db.prepare("INSERT INTO t VALUES (randomblob(1000))")
            for _ in 0..<4000 { try insert.run() }
        }
        #expect(try db.scalarInt("SELECT count(*) FROM t") == 4000)
        let descriptors = try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")
        let spills = descriptors.compactMap { try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\($0)") }
            .filter { $0.contains("etilqs_") }
        #expect(!spills.isEmpty, "4 MB of rows with a 256 KiB cache should have spilled to a file")
        #expect(spills.allSatisfy { $0.hasSuffix(" (deleted)") }, "\(spills)")
    }

    @Test func bindsAndReadsTypedValues() throws {
        let db = try Connection(path: path)
        try db.execute("CREATE TABLE t (i INTEGER, r REAL, s TEXT, b BLOB, n TEXT)")
        try db.execute(
            "INSERT INTO t VALUES (?, ?, ?, ?, ?)",
            [42, 2.5, "héllo 'quoted'", SQLiteValue.blob([0, 1, 255]), String?.none])
        let row = try db.prepare("SELECT i, r, s, b, n FROM t").first { row in
            (row.int(0), row.double(1), row.string(2), row.value(3), row.optionalString(4))
        }
        #expect(row?.0 == 42)
        #expect(row?.1 == 2.5)
        #expect(row?.2 == "héllo 'quoted'")
        #expect(row?.3 == .blob([0, 1, 255]))
        #expect(row?.4 == nil)
    }

    @Test func errorsCarryCodeMessageAndSQL() throws {
        let db = try Connection(path: path)
        let error = #expect(throws: SQLiteError.self) { try db.execute("SELECT * FROM no_such_table") }
        #expect(error?.code == .SQLITE_ERROR)
        #expect(error?.message.contains("no such table") == true)
        #expect(error?.sql == "SELECT * FROM no_such_table")
    }

    @Test func constraintViolationsUseExtendedCodesMatchingTheirPrimary() throws {
        let db = try Connection(path: path)
        try db.execute("CREATE TABLE t (k TEXT UNIQUE)")
        try db.execute("INSERT INTO t VALUES ('x')")
        let error = #expect(throws: SQLiteError.self) { try db.execute("INSERT INTO t VALUES ('x')") }
        #expect(error.map { ResultCode.SQLITE_CONSTRAINT ~= $0.code } == true)
        #expect(error?.code != .SQLITE_CONSTRAINT)  // the extended code (SQLITE_CONSTRAINT_UNIQUE) is kept
    }

    @Test func transactionRollsBackWhenTheBodyThrows() throws {
        struct Boom: Error {}
        let db = try Connection(path: path)
        try db.execute("CREATE TABLE t (v INTEGER)")
        #expect(throws: Boom.self) {
            try db.transaction {
                try db.execute("INSERT INTO t VALUES (1)")
                throw Boom()
            }
        }
        #expect(try db.scalarInt("SELECT count(*) FROM t") == 0)
        #expect(!db.isInTransaction)
        try db.transaction { try db.execute("INSERT INTO t VALUES (2)") }
        #expect(try db.scalarInt("SELECT count(*) FROM t") == 1)
    }

    @Test func aFileThatIsNotADatabaseIsRefusedAndLeftAlone() throws {
        let path = directory.path("notes.txt")
        let content = Data(String(repeating: "not a database\n", count: 100).utf8)
        try content.write(to: URL(fileURLWithPath: path))
        let error = #expect(throws: SQLiteError.self) { _ = try Connection(path: path) }
        #expect(error.map { ResultCode.SQLITE_NOTADB ~= $0.code } == true)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == content)
    }

    @Test func readOnlyConnectionReadsWhileAWriterHoldsAnOpenTransaction() throws {
        let writer = try Connection(path: path)
        try writer.execute("CREATE TABLE t (v INTEGER)")
        try writer.execute("INSERT INTO t VALUES (1)")
        try writer.execute("BEGIN IMMEDIATE")
        try writer.execute("INSERT INTO t VALUES (2)")
        let reader = try Connection(path: path, mode: .readOnly, busyTimeout: .milliseconds(10))
        #expect(try reader.scalarInt("SELECT count(*) FROM t") == 1)  // sees the last commit, does not wait
        try writer.execute("COMMIT")
        #expect(try reader.scalarInt("SELECT count(*) FROM t") == 2)
        #expect(throws: SQLiteError.self) { try reader.execute("INSERT INTO t VALUES (3)") }
    }

    @Test func busyWriterFailsAfterTheTimeoutInsteadOfWaitingForever() throws {
        let first = try Connection(path: path)
        try first.execute("CREATE TABLE t (v INTEGER)")
        try first.execute("BEGIN IMMEDIATE")
        let second = try Connection(path: path, busyTimeout: .milliseconds(50))
        let error = #expect(throws: SQLiteError.self) { try second.execute("BEGIN IMMEDIATE") }
        #expect(error.map { ResultCode.SQLITE_BUSY ~= $0.code } == true)
        try first.execute("ROLLBACK")
    }

    @Test func closeSucceedsAndStatementsAreFinalizedOnEarlyExit() throws {
        let db = try Connection(path: path)
        try db.execute("CREATE TABLE t (v INTEGER)")
        for value in 0..<10 { try db.execute("INSERT INTO t VALUES (?)", [value]) }
        // Leave a statement mid-iteration; deinit must finalize it so close() succeeds.
        do {
            let statement = try db.prepare("SELECT v FROM t")
            _ = try statement.step()
        }
        _ = try db.cachedStatement("SELECT count(*) FROM t").first { $0.int(0) }
        try db.close()
    }
}
