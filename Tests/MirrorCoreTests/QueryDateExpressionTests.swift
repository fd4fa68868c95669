import MirrorTestSupport
import Foundation
import Testing
@testable import MirrorCore

@Suite struct QueryDateExpressionTests {
    static let utc = TimeZone(identifier: "UTC")!
    /// 2024-05-15T10:30:00Z, a Wednesday.
    static let now = ISO8601Timestamp.parse("2024-05-15T10:30:00Z")!

    func parse(_ text: String, _ bound: DateExpression.Bound = .lower, zone: TimeZone = utc) throws -> String {
        ISO8601Timestamp.format(try DateExpression.parse(text, bound: bound, now: Self.now, timeZone: zone))
    }

    @Test(arguments: [
        ("2024-01-02", DateExpression.Bound.lower, "2024-01-02T00:00:00Z"),
        ("2024-01-02", .upper, "2024-01-02T23:59:59Z"),
        ("2024-01-02T03:04", .lower, "2024-01-02T03:04:00Z"),
        ("2024-01-02 03:04:05", .lower, "2024-01-02T03:04:05Z"),
        ("2024-01-02T03:04:05Z", .upper, "2024-01-02T03:04:05Z"),
        ("2024-01-02T03:04:05+02:00", .lower, "2024-01-02T01:04:05Z"),
        ("2024-01-02T03:04:05.123-0130", .lower, "2024-01-02T04:34:05Z"),
        ("@1700000000", .lower, "2023-11-14T22:13:20Z"),
    ])
    func absoluteDates(text: String, bound: DateExpression.Bound, expected: String) throws {
        #expect(try parse(text, bound) == expected)
    }

    @Test func aDateWithoutZoneIsLocalTime() throws {
        let tokyo = TimeZone(identifier: "Asia/Tokyo")!
        #expect(try parse("2024-01-02", zone: tokyo) == "2024-01-01T15:00:00Z")
        #expect(try parse("2024-01-02T09:00:00Z", zone: tokyo) == "2024-01-02T09:00:00Z")
    }

    @Test(arguments: [
        ("12 hours ago", "2024-05-14T22:30:00Z"),
        ("2 weeks ago", "2024-05-01T10:30:00Z"),
        ("2.weeks.ago", "2024-05-01T10:30:00Z"),
        ("3 days", "2024-05-12T10:30:00Z"),
        ("90 minutes ago", "2024-05-15T09:00:00Z"),
        ("1 year, 2 months ago", "2023-03-15T10:30:00Z"),
        ("a week ago", "2024-05-08T10:30:00Z"),
        ("1 month ago", "2024-04-15T10:30:00Z"),
        ("30 seconds ago", "2024-05-15T10:29:30Z"),
        ("yesterday", "2024-05-14T10:30:00Z"),
        ("today", "2024-05-15T00:00:00Z"),
        ("now", "2024-05-15T10:30:00Z"),
        ("last week", "2024-05-08T10:30:00Z"),
        ("Last Year", "2023-05-15T10:30:00Z"),
    ])
    func relativeDates(text: String, expected: String) throws {
        #expect(try parse(text) == expected)
    }

    @Test(arguments: [
        "", "soon", "2024-13-01", "2024-02-30", "2 fortnights ago", "ago", "3", "2024-01-02T25:00",
        "'; DROP TABLE commits; --", "12 hours ago ago",
    ])
    func rejectsWhatItCannotRead(text: String) {
        #expect(throws: DateExpression.ParseError.self) {
            try DateExpression.parse(text, bound: .lower, now: Self.now, timeZone: Self.utc)
        }
    }
}
