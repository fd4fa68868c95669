import Foundation

/// The date bounds a query accepts, in the forms people type for
/// `git log`:
///
/// - ISO 8601: `2024-05-01`, `2024-05-01T12:30`, `2024-05-01 12:30:00`,
///   `2024-05-01T12:30:00Z`, `2024-05-01T12:30:00+02:00`. Without a zone the
///   time is local, as in git.
/// - Relative: `12 hours ago`, `2 weeks ago`, `2.weeks.ago`, `1 year, 2 months ago`,
///   `3 days` (the `ago` may be left out), units from seconds to years.
/// - Words: `now`, `today` (midnight this morning), `yesterday` (24 hours ago, as
///   in git), `last week`/`last month`/`last year`, and `@1700000000` (Unix time).
/// - Weekdays and times of day: `last tuesday`, `noon`, `yesterday noon`
///   (DateExpression+Words.swift).
///
/// A date without a time names a whole day: as a lower bound it starts at
/// midnight, as an upper bound it ends at 23:59:59 (git would use the current
/// time of day, which surprises everyone).
public enum DateExpression {
    public enum Bound: Sendable { case lower, upper }

    public struct ParseError: Error, Sendable, CustomStringConvertible {
        public let text: String
        public var description: String {
            "cannot read '\(text)' as a date; use an ISO date such as 2024-05-01 or 2024-05-01T12:00:00Z, or a relative date such as \"2 weeks ago\" or \"yesterday\""
        }
    }

    /// Parses `text` relative to `now` in `timeZone` (the local zone by default).
    public static func parse(
        _ text: String, bound: Bound, now: Date = Date(),
        timeZone: TimeZone = .current
    ) throws -> Date {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if let date = absolute(trimmed, bound: bound, timeZone: timeZone) { return date }
        if let date = relative(trimmed.lowercased(), now: now, timeZone: timeZone) { return date }
        throw ParseError(text: text)
    }

    // MARK: - Absolute dates

    private static func absolute(_ text: String, bound: Bound, timeZone: TimeZone) -> Date? {
        if text.hasPrefix("@"), let seconds = Int64(text.dropFirst()) {
            return Date(timeIntervalSince1970: TimeInterval(seconds))
        }
        let bytes = Array(text.utf8)
        func digits(_ start: Int, _ count: Int) -> Int? {
            guard start + count <= bytes.count else { return nil }
            var value = 0
            for byte in bytes[start..<(start + count)] {
                guard (0x30...0x39).contains(byte) else { return nil }
                value = value * 10 + Int(byte - 0x30)
            }
            return value
        }
        guard bytes.count >= 10, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"),
            let year = digits(0, 4), let month = digits(5, 2), let day = digits(8, 2),
            (1...12).contains(month), (1...daysIn(month: month, year: year)).contains(day)
        else { return nil }
        if bytes.count == 10 {
            let components = bound == .lower ? (0, 0, 0) : (23, 59, 59)
            return localDate(year: year, month: month, day: day, time: components, timeZone: timeZone)
        }
        // Date and time: with a zone it is exact; without one it is local time.
        guard bytes[10] == UInt8(ascii: "T") || bytes[10] == UInt8(ascii: " ") || bytes[10] == UInt8(ascii: "t"),
            let hour = digits(11, 2), bytes.count >= 16, bytes[13] == UInt8(ascii: ":"),
            let minute = digits(14, 2), hour < 24, minute < 60
        else { return nil }
        var index = 16
        var second = 0
        if index < bytes.count, bytes[index] == UInt8(ascii: ":") {
            guard let value = digits(17, 2), value < 60 else { return nil }
            second = value
            index = 19
            if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
                index += 1
                while index < bytes.count, (0x30...0x39).contains(bytes[index]) { index += 1 }
            }
        }
        if index == bytes.count {
            return localDate(year: year, month: month, day: day, time: (hour, minute, second), timeZone: timeZone)
        }
        // A zone: reuse the store's parser on the canonical form.
        let zone = String(decoding: bytes[index...], as: UTF8.self)
        let canonical = String(format: "%04d-%02d-%02dT%02d:%02d:%02d", year, month, day, hour, minute, second) + zone
        return ISO8601Timestamp.parse(canonical)
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    private static func localDate(year: Int, month: Int, day: Int, time: (Int, Int, Int), timeZone: TimeZone) -> Date? {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        return calendar.date(
            from: DateComponents(
                year: year, month: month, day: day,
                hour: time.0, minute: time.1, second: time.2))
    }

    // MARK: - Relative dates

    private static let units: [(names: [String], component: Calendar.Component, multiplier: Int)] = [
        (["s", "sec", "secs", "second", "seconds"], .second, 1),
        (["min", "mins", "minute", "minutes"], .minute, 1),
        (["h", "hr", "hrs", "hour", "hours"], .hour, 1),
        (["d", "day", "days"], .day, 1),
        (["w", "week", "weeks"], .day, 7),
        (["month", "months"], .month, 1),
        (["y", "year", "years"], .year, 1),
    ]

    private static func relative(_ text: String, now: Date, timeZone: TimeZone) -> Date? {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        switch text {
        case "now": return now
        case "today": return calendar.startOfDay(for: now)
        case "yesterday": return now.addingTimeInterval(-86_400)
        case "last week": return calendar.date(byAdding: .day, value: -7, to: now)
        case "last month": return calendar.date(byAdding: .month, value: -1, to: now)
        case "last year": return calendar.date(byAdding: .year, value: -1, to: now)
        default: break
        }
        if let date = named(text, now: now, calendar: calendar) { return date }
        // "1 year, 2 months ago", "2.weeks.ago", "3days": number-unit pairs, then an optional "ago".
        var words = text.replacingOccurrences(of: ".", with: " ").replacingOccurrences(of: ",", with: " ")
            .split(separator: " ").map(String.init)
        if words.last == "ago" { words.removeLast() }
        var pairs: [(Int, String)] = []
        var pendingNumber: Int?
        for word in words {
            if let number = Int(word) {
                guard pendingNumber == nil, number >= 0 else { return nil }
                pendingNumber = number
            } else if let split = word.firstIndex(where: { !$0.isNumber }), split != word.startIndex,
                let number = Int(word[..<split])
            {
                guard pendingNumber == nil else { return nil }
                pairs.append((number, String(word[split...])))
            } else if let number = pendingNumber {
                pairs.append((number, word))
                pendingNumber = nil
            } else if word == "a" || word == "an" {
                pendingNumber = 1
            } else {
                return nil
            }
        }
        guard pendingNumber == nil, !pairs.isEmpty else { return nil }
        var date = now
        for (number, name) in pairs {
            guard let unit = units.first(where: { $0.names.contains(name) }),
                let next = calendar.date(byAdding: unit.component, value: -number * unit.multiplier, to: date)
            else { return nil }
            date = next
        }
        return date
    }
}
