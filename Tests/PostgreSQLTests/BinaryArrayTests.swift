import Foundation
import MirrorTestSupport
import PostgreSQL
import Testing

/// `executePrepared(_:arrays:)`: arrays sent in PostgreSQL's binary format reach
/// a real server element for element, whatever the elements hold, and a wrong
/// type is the server's clear error, not a wrong value.
@Suite struct BinaryArrayTests {
    @Test func textArraysArriveElementForElementWithTheirNulls() async throws {
        let connection = try await connectToNewDatabase()
        let hostile = "x'); DROP TABLE t; --\t\"\\ {a,b} NULL Ωμέγα 🚀\n"
        let elements: [String?] = [hostile, nil, "", "NULL", String(repeating: "é", count: 100_000)]
        let rows = try connection.executePrepared(
            "SELECT value, value IS NULL, ordinality FROM unnest($1::text[]) WITH ORDINALITY AS t(value, ordinality)",
            arrays: [.text(elements)])
        #expect(rows.count == elements.count)
        for (index, element) in elements.enumerated() {
            #expect(rows.bool(index, 1) == (element == nil))
            if let element { #expect(rows.string(index, 0) == element) }
            #expect(rows.int(index, 2) == index + 1)
        }
    }

    @Test func integerArraysAndSeveralParametersGoTogether() async throws {
        let connection = try await connectToNewDatabase()
        let rows = try connection.executePrepared(
            "SELECT n, label FROM unnest($1::integer[], $2::text[]) AS t(n, label)",
            arrays: [.integer([Int32.min, -1, 0, 7, Int32.max]), .text(["a", "b", "c", "d", "e"])])
        #expect((0..<rows.count).map { rows.int64($0, 0) } == [Int64(Int32.min), -1, 0, 7, Int64(Int32.max)])
        #expect((0..<rows.count).map { rows.string($0, 1) } == ["a", "b", "c", "d", "e"])
    }

    @Test func byteaAndNullableIntegerArraysArriveByteForByteWithTheirNulls() async throws {
        let connection = try await connectToNewDatabase()
        let elements: [[UInt8]?] = [[0xff, 0x00, 0x5c, 0x22], nil, [], Array("a/b.txt".utf8)]
        let rows = try connection.executePrepared(
            "SELECT encode(b, 'hex'), b IS NULL, n FROM unnest($1::bytea[], $2::integer[]) AS t(b, n)",
            arrays: [.bytea(elements), .nullableInteger([7, nil, 0, Int32.max])])
        #expect((0..<rows.count).map { rows.string($0, 0) } == ["ff005c22", nil, "", "612f622e747874"])
        #expect((0..<rows.count).map { rows.bool($0, 1) } == [false, true, false, false])
        #expect((0..<rows.count).map { rows.int64($0, 2) } == [7, nil, 0, Int64(Int32.max)])
    }

    @Test func emptyArraysAreEmpty() async throws {
        let connection = try await connectToNewDatabase()
        let rows = try connection.executePrepared(
            "SELECT cardinality($1::text[]), cardinality($2::integer[]), (SELECT count(*) FROM unnest($1::text[]))",
            arrays: [.text([]), .integer([])])
        #expect(rows.int(0, 0) == 0)
        #expect(rows.int(0, 1) == 0)
        #expect(rows.int(0, 2) == 0)
    }

    @Test func anArrayOfAnotherTypeIsRefusedByTheServer() async throws {
        let connection = try await connectToNewDatabase()
        let error = try #require(throws: PostgreSQLError.self) {
            try connection.executePrepared("SELECT cardinality($1::integer[])", arrays: [.text(["1"])])
        }
        #expect(error.sqlState == "42804")
        // The connection stays usable, and the statement too once given the right type.
        #expect(try connection.executePrepared("SELECT cardinality($1::integer[])", arrays: [.integer([1, 2])]).int(0, 0) == 2)
    }
}
