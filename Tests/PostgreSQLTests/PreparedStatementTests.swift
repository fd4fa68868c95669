import Foundation
import MirrorTestSupport
import PostgreSQL
import Testing

/// `executePrepared`: a statement is parsed once per connection and run again
/// with new parameters, bound as `execute` binds them, across transactions
/// whatever became of them, and across changes to what it reads.
@Suite struct PreparedStatementTests {
    private func preparedCount(_ connection: PostgreSQLConnection) throws -> Int {
        try connection.execute("SELECT count(*) FROM pg_prepared_statements").int(0, 0) ?? -1
    }

    @Test func aStatementIsPreparedOnceAndBoundAnewEachTime() async throws {
        let connection = try await connectToNewDatabase()
        try connection.execute("CREATE TABLE t (id bigint PRIMARY KEY, body text)")
        let insert = "INSERT INTO t VALUES ($1, $2)"
        let hostile = "x'); DROP TABLE t; --\t\"\\ Ωμέγα 🚀"
        try connection.executePrepared(insert, [Int64(1), hostile])
        try connection.executePrepared(insert, [Int64(2), String?.none])
        #expect(try preparedCount(connection) == 1)
        let select = "SELECT body FROM t WHERE id = $1"
        #expect(try connection.executePrepared(select, [Int64(1)]).string(0, 0) == hostile)
        #expect(try connection.executePrepared(select, [Int64(2)]).isNull(0, 0))
        #expect(try preparedCount(connection) == 2)
    }

    @Test func aPreparedStatementOutlivesARolledBackTransaction() async throws {
        let connection = try await connectToNewDatabase()
        try connection.execute("CREATE TABLE t (id bigint PRIMARY KEY)")
        let insert = "INSERT INTO t VALUES ($1)"
        struct Abandon: Error {}
        #expect(throws: Abandon.self) {
            try connection.transaction {
                try connection.executePrepared(insert, [Int64(1)])
                throw Abandon()
            }
        }
        // A failed statement inside a transaction fails it; the statement stays prepared.
        #expect(throws: PostgreSQLError.self) {
            try connection.transaction {
                try connection.executePrepared(insert, [Int64(2)])
                try connection.executePrepared(insert, [Int64(2)])
            }
        }
        try connection.executePrepared(insert, [Int64(3)])
        #expect(try connection.execute("SELECT array_agg(id ORDER BY id)::text FROM t").string(0, 0) == "{3}")
        #expect(try preparedCount(connection) == 1)
    }

    @Test func aStatementThatFailsToPrepareIsReportedAndPreparedOnceItCan() async throws {
        let connection = try await connectToNewDatabase()
        let select = "SELECT count(*) FROM later WHERE id > $1"
        let error = try #require(throws: PostgreSQLError.self) { try connection.executePrepared(select, [Int64(0)]) }
        #expect(error.sqlState == "42P01")
        try connection.execute("CREATE TABLE later (id bigint)")
        try connection.execute("INSERT INTO later VALUES (1), (2)")
        #expect(try connection.executePrepared(select, [Int64(1)]).int(0, 0) == 1)
        // An index built or dropped under it replans it; the answer stays the same.
        try connection.execute("CREATE INDEX later_id ON later (id)")
        try connection.execute("ANALYZE later")
        #expect(try connection.executePrepared(select, [Int64(0)]).int(0, 0) == 2)
        try connection.execute("DROP INDEX later_id")
        #expect(try connection.executePrepared(select, [Int64(0)]).int(0, 0) == 2)
    }
}
