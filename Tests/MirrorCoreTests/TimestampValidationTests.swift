import MirrorTestSupport
import Foundation
import Testing
@testable import MirrorCore

/// Only dates that exist: a day past the end of its month is refused, not
/// rolled into the next month, and there is no second 60.
@Suite struct TimestampValidationTests {
    @Test(arguments: [
        ("2024-02-29T10:00:00Z", "2024-02-29T10:00:00Z"),  // leap year
        ("2000-02-29T10:00:00Z", "2000-02-29T10:00:00Z"),  // divisible by 400: leap
        ("2023-02-28T23:59:59Z", "2023-02-28T23:59:59Z"),
        ("2024-04-30T00:00:00Z", "2024-04-30T00:00:00Z"),
        ("2024-12-31T23:59:59+00:00", "2024-12-31T23:59:59Z"),
        ("2024-03-01T01:00:00+02:00", "2024-02-29T23:00:00Z"),  // the offset may cross into a leap day
    ])
    func acceptsRealDates(text: String, stored: String) throws {
        let date = try #require(ISO8601Timestamp.parse(text))
        #expect(ISO8601Timestamp.format(date) == stored)
    }

    @Test(arguments: [
        "2023-02-29T10:00:00Z",  // not a leap year
        "2024-02-30T10:00:00Z",
        "2024-04-31T10:00:00Z",
        "2024-06-31T10:00:00Z",
        "2024-09-31T10:00:00Z",
        "2024-11-31T10:00:00Z",
        "1900-02-29T10:00:00Z",  // divisible by 100, not by 400: no leap day
        "2100-02-29T10:00:00Z",
        "2024-01-32T10:00:00Z",
        "2024-01-00T10:00:00Z",
        "2024-00-10T10:00:00Z",
        "2024-06-30T23:59:60Z",  // no leap seconds
        "2024-06-30T24:00:00Z",
        "2024-06-30T23:60:00Z",
    ])
    func refusesDatesThatDoNotExist(text: String) {
        #expect(ISO8601Timestamp.parse(text) == nil)
    }

    @Test func everyDayOfFourHundredYearsMatchesTheCalendar() throws {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        for year in [1900, 1999, 2000, 2023, 2024, 2100, 2400] {
            for month in 1...12 {
                let start = calendar.date(from: DateComponents(year: year, month: month, day: 1))!
                let length = calendar.range(of: .day, in: .month, for: start)!.count
                #expect(ISO8601Timestamp.daysInMonth(month, year: year) == length, "\(year)-\(month)")
                let last = String(format: "%04d-%02d-%02dT12:00:00Z", year, month, length)
                let past = String(format: "%04d-%02d-%02dT12:00:00Z", year, month, length + 1)
                #expect(ISO8601Timestamp.parse(last).map(ISO8601Timestamp.format) == last)
                #expect(ISO8601Timestamp.parse(past) == nil, "\(past)")
            }
        }
    }

    @Test(arguments: ["2024-02-30T10:00:00Z", "2023-02-29T10:00:00Z", "2024-06-30T23:59:60Z"])
    func aPageWithAnImpossibleDateIsUnreadable(date: String) {
        let page = PayloadFixtures.page([
            PayloadFixtures.element(sha: PayloadFixtures.sha(2)),
            PayloadFixtures.element(sha: PayloadFixtures.sha(1), date: date),
        ])
        #expect {
            try PayloadDecoder().decodeCommitPage(page)
        } throws: { error in
            guard case DecodingError.dataCorrupted(let context) = error else { return false }
            return context.debugDescription.contains(date)
        }
    }
}

/// `format` writes what Foundation's own ISO 8601 formatter writes, second for
/// second, since the Gregorian calendar began (before it, Foundation counts Julian
/// days; both our functions count Gregorian ones, and agree with each other), and
/// years past four digits whole.
@Suite struct TimestampFormatTests {
    @Test func formatAgreesWithFoundationAndParseAcrossTheFourDigitYears() throws {
        let reference = ISO8601DateFormatter()
        reference.timeZone = TimeZone(identifier: "UTC")
        var generator = SystemRandomNumberGenerator()
        // 0001-01-01, 1583-01-01 (the first whole Gregorian year), 9999-12-31 23:59:59.
        let first = -62_135_596_800
        let gregorian = -12_212_553_600
        let last = 253_402_300_799
        var seconds = [first, first + 86_399, gregorian, 0, -1, 951_782_400, 951_868_799, last - 86_399, last]
        for _ in 0..<20_000 { seconds.append(Int.random(in: first...last, using: &generator)) }
        for second in seconds {
            let date = Date(timeIntervalSince1970: TimeInterval(second))
            let text = ISO8601Timestamp.format(date)
            #expect(ISO8601Timestamp.parse(text) == date, "\(second) \(text)")
            if second >= gregorian { #expect(text == reference.string(from: date), "\(second)") }
        }
        #expect(ISO8601Timestamp.format(Date(timeIntervalSince1970: TimeInterval(first))) == "0001-01-01T00:00:00Z")
        // Fractions of a second are dropped, never rounded up.
        #expect(ISO8601Timestamp.format(Date(timeIntervalSince1970: 59.999)) == "1970-01-01T00:00:59Z")
    }

    @Test func aYearPastFourDigitsIsWrittenWhole() {
        #expect(ISO8601Timestamp.format(Date(timeIntervalSince1970: 253_402_300_800)) == "10000-01-01T00:00:00Z")
    }
}
