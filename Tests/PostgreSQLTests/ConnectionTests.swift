import Foundation
import MirrorTestSupport
import PostgreSQL
import Testing

/// The libpq wrapper against a real PostgreSQL 15 server the suite starts itself.
@Suite struct ConnectionTests {
    @Test func connectsToTheServerTheSuiteStarted() async throws {
        let connection = try await connectToNewDatabase()
        #expect(connection.serverVersion >= 150_000 && connection.serverVersion < 160_000)
        #expect(connection.isHealthy)
        #expect(connection.parameterStatus("server_encoding") == "UTF8")
    }

    @Test func parametersAreBoundNeverSpliced() async throws {
        let connection = try await connectToNewDatabase()
        try connection.execute("CREATE TABLE t (id bigint PRIMARY KEY, body text, flag boolean)")
        let hostile = "x'); DROP TABLE t; --\t\"\\ Ωμέγα 🚀"
        try connection.execute("INSERT INTO t VALUES ($1, $2, $3)", [Int64(1), hostile, true])
        try connection.execute("INSERT INTO t VALUES ($1, $2, $3)", [Int64(2), String?.none, false])
        let rows = try connection.execute("SELECT id, body, flag FROM t ORDER BY id")
        #expect(rows.count == 2)
        #expect(rows.int64(0, 0) == 1 && rows.string(0, 1) == hostile && rows.bool(0, 2) == true)
        #expect(rows.isNull(1, 1) && rows.string(1, 1) == nil && rows.bool(1, 2) == false)
        #expect(rows.columnName(1) == "body")
    }

    @Test func errorsCarryTheSQLStateAndTheStatementButNotItsValues() async throws {
        let connection = try await connectToNewDatabase()
        try connection.execute("CREATE TABLE t (sha text PRIMARY KEY)")
        try connection.execute("INSERT INTO t VALUES ($1)", ["secret-looking-value"])
        let error = try #require(throws: PostgreSQLError.self) {
            try connection.execute("INSERT INTO t VALUES ($1)", ["secret-looking-value"])
        }
        #expect(error.sqlState == "23505")
        #expect(error.kind == .statement)
        #expect(error.sql == "INSERT INTO t VALUES ($1)")
        #expect(!error.description.contains("secret-looking-value"))
        #expect(!error.description.contains("\n"))
        // The connection stays usable after a failed statement outside a transaction.
        #expect(try connection.execute("SELECT count(*) FROM t").int(0, 0) == 1)
    }

    @Test func aTransactionCommitsOrRollsBackWhole() async throws {
        let connection = try await connectToNewDatabase()
        try connection.execute("CREATE TABLE t (n int)")
        try connection.transaction { try connection.execute("INSERT INTO t VALUES (1)") }
        struct Abandon: Error {}
        #expect(throws: Abandon.self) {
            try connection.transaction {
                try connection.execute("INSERT INTO t VALUES (2)")
                throw Abandon()
            }
        }
        #expect(!connection.isInTransaction)
        #expect(try connection.execute("SELECT array_agg(n ORDER BY n)::text FROM t").string(0, 0) == "{1}")
    }

    @Test func aFailureCaughtInsideATransactionIsNotReportedAsACommit() async throws {
        let connection = try await connectToNewDatabase()
        try connection.execute("CREATE TABLE t (n int PRIMARY KEY)")
        let error = try #require(throws: PostgreSQLError.self) {
            try connection.transaction {
                try connection.execute("INSERT INTO t VALUES (1)")
                _ = try? connection.execute("INSERT INTO t VALUES (1)")  // fails; the transaction is now aborted
            }
        }
        #expect(error.sqlState == "25P02")
        #expect(try connection.execute("SELECT count(*) FROM t").int(0, 0) == 0)
    }

    @Test func serializationFailuresAreRetriedAndOthersAreNot() async throws {
        let connection = try await connectToNewDatabase()
        try connection.execute("CREATE TABLE t (n int)")
        var attempts = 0
        try connection.retryingTransaction {
            attempts += 1
            try connection.execute("INSERT INTO t VALUES ($1)", [attempts])
            if attempts < 3 {
                try connection.execute("DO $$ BEGIN RAISE EXCEPTION 'conflict' USING ERRCODE = '40001'; END $$")
            }
        }
        #expect(attempts == 3)
        #expect(try connection.execute("SELECT array_agg(n)::text FROM t").string(0, 0) == "{3}")
        var failing = 0
        let error = try #require(throws: PostgreSQLError.self) {
            try connection.retryingTransaction {
                failing += 1
                try connection.execute("SELECT 1/0")
            }
        }
        #expect(error.sqlState == "22012" && failing == 1)
    }

    @Test func copyTakesEveryCharacterAndNull() async throws {
        let connection = try await connectToNewDatabase()
        try connection.execute("CREATE TABLE t (id int, body text)")
        let bodies: [String?] = ["tab\there", "line\nbreak\r\n", "back\\slash \\N", nil, "", "Ωμέγα 🚀 日本語", "\\."]
        let rows = bodies.enumerated().map { [String($0.offset), $0.element] }
        // Enough rows to need several buffers.
        let many = (0..<20_000).map { [String(100 + $0), String(repeating: "x", count: $0 % 50)] }
        #expect(try connection.copyIn("COPY t (id, body) FROM STDIN", rows: rows + many) == bodies.count + many.count)
        let back = try connection.execute("SELECT body FROM t WHERE id < 100 ORDER BY id")
        #expect((0..<back.count).map { back.string($0, 0) } == bodies)
    }

    @Test func aFailedCopyStoresNothingAndLeavesTheConnectionUsable() async throws {
        let connection = try await connectToNewDatabase()
        try connection.execute("CREATE TABLE t (id int PRIMARY KEY)")
        #expect(throws: PostgreSQLError.self) {
            try connection.copyIn("COPY t (id) FROM STDIN", rows: [["1"], ["2"], ["not a number"]])
        }
        #expect(try connection.execute("SELECT count(*) FROM t").int(0, 0) == 0)
    }

    @Test func rowsStreamOneAtATime() async throws {
        let connection = try await connectToNewDatabase()
        var seen: [Int] = []
        try connection.forEachRow("SELECT g FROM generate_series(1, $1::int) g", [5000]) { row in
            #expect(row.count == 1)
            seen.append(row.int(0, 0) ?? -1)
        }
        #expect(seen == Array(1...5000))
        struct Enough: Error {}
        #expect(throws: Enough.self) {
            try connection.forEachRow("SELECT g FROM generate_series(1, 100000) g") { _ in throw Enough() }
        }
        // Every result of the abandoned statement was drained: the next one runs.
        #expect(try connection.execute("SELECT 42").int(0, 0) == 42)
        #expect(throws: PostgreSQLError.self) { try connection.forEachRow("SELECT 1/(g-3) FROM generate_series(1,5) g") { _ in } }
        #expect(try connection.execute("SELECT 7").int(0, 0) == 7)
    }

    @Test func aTerminatedBackendIsAConnectionLoss() async throws {
        let server = try await PostgreSQLServer.shared()
        let connection = try PostgreSQLConnection(uri: try server.createDatabase())
        try server.execute("SELECT pg_terminate_backend($1)", [connection.backendPID])
        let error = try #require(throws: PostgreSQLError.self) { try connection.execute("SELECT 1") }
        #expect(error.isConnectionLost)
        #expect(!connection.isHealthy)
    }
}
