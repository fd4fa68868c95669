import MirrorTestSupport
import Foundation
import SQLite
import Testing

/// `Connection.backup(to:)`: SQLite's online backup API, one consistent snapshot.
@Suite struct BackupTests {
    static func rows(_ path: String) throws -> [Int] {
        try Connection(path: path, mode: .readOnly).prepare("SELECT x FROM t ORDER BY x").map { $0.int(0) }
    }

    @Test func copiesEveryCommittedRowIntoAFreshFile() throws {
        let directory = try TemporaryDirectory()
        let source = try Connection(path: directory.path("source.sqlite"))
        try source.execute("CREATE TABLE t (x INTEGER PRIMARY KEY, padding TEXT)")
        try source.transaction {
            for x in 1...5_000 { try source.execute("INSERT INTO t VALUES (?, ?)", [x, String(repeating: "p", count: 200)]) }
        }
        try source.backup(to: directory.path("copy.sqlite"))
        #expect(try Self.rows(directory.path("copy.sqlite")) == Array(1...5_000))
        let copy = try Connection(path: directory.path("copy.sqlite"))
        #expect(try copy.pragma("integrity_check") == "ok")
        #expect(try copy.pragma("journal_mode") == "wal")
    }

    /// WAL: another connection's write in progress neither blocks the copy nor
    /// leaks into it; the copy is the last committed state.
    @Test func aWriterInProgressNeitherBlocksNorLeaksIntoTheCopy() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("source.sqlite")
        let source = try Connection(path: path)
        try source.execute("CREATE TABLE t (x INTEGER PRIMARY KEY)")
        try source.transaction { for x in 1...100 { try source.execute("INSERT INTO t VALUES (?)", [x]) } }

        let writer = try Connection(path: path)
        try writer.execute("BEGIN IMMEDIATE")
        for x in 101...200 { try writer.execute("INSERT INTO t VALUES (?)", [x]) }
        let reader = try Connection(path: path, mode: .readOnly)
        let clock = ContinuousClock()
        let start = clock.now
        try reader.backup(to: directory.path("copy.sqlite"))
        #expect(clock.now - start < .seconds(4), "the copy must not wait for the writer's busy timeout")
        try writer.execute("COMMIT")

        #expect(try Self.rows(directory.path("copy.sqlite")) == Array(1...100))
        #expect(try Self.rows(path) == Array(1...200))
    }

    @Test func aDestinationThatCannotBeCreatedIsAnError() throws {
        let directory = try TemporaryDirectory()
        let source = try Connection(path: directory.path("source.sqlite"))
        try source.execute("CREATE TABLE t (x INTEGER)")
        let error = #expect(throws: SQLiteError.self) {
            try source.backup(to: directory.path("missing/dir/copy.sqlite"))
        }
        #expect(error.map { ResultCode.SQLITE_CANTOPEN ~= $0.code } == true)
    }
}
