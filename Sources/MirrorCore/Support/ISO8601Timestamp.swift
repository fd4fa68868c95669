import Foundation

/// Fast parsing and formatting of the timestamps GitHub sends and the store
/// keeps. `ISO8601DateFormatter` is correct but slow on hot decode paths.
public enum ISO8601Timestamp {
    /// Parses `YYYY-MM-DDTHH:MM:SS` with optional fractional seconds, followed by
    /// `Z` or a `±HH:MM` / `±HHMM` offset. Returns `nil` for anything else,
    /// including dates that do not exist (`2023-02-29`, `T10:00:60`).
    public static func parse(_ text: String) -> Date? {
        var text = text
        return text.withUTF8 { parse(utf8: $0) }
    }

    static func parse(utf8 b: UnsafeBufferPointer<UInt8>) -> Date? {
        guard b.count >= 20 else { return nil }
        func digits(_ start: Int, _ count: Int) -> Int? {
            var value = 0
            for i in start..<(start + count) {
                let c = b[i]
                guard c >= 0x30, c <= 0x39 else { return nil }
                value = value * 10 + Int(c - 0x30)
            }
            return value
        }
        guard b[4] == 0x2D, b[7] == 0x2D, b[10] == 0x54 || b[10] == 0x20, b[13] == 0x3A, b[16] == 0x3A,
            let year = digits(0, 4), let month = digits(5, 2), let day = digits(8, 2),
            let hour = digits(11, 2), let minute = digits(14, 2), let second = digits(17, 2),
            (1...12).contains(month), (1...daysInMonth(month, year: year)).contains(day),
            hour < 24, minute < 60, second < 60  // no leap seconds: Git and GitHub never write :60
        else { return nil }
        var index = 19
        if b[index] == 0x2E {  // fractional seconds: accepted and dropped
            index += 1
            while index < b.count, b[index] >= 0x30, b[index] <= 0x39 { index += 1 }
        }
        guard index < b.count else { return nil }
        var offsetSeconds = 0
        switch b[index] {
        case 0x5A, 0x7A:  // Z
            guard index + 1 == b.count else { return nil }
        case 0x2B, 0x2D:  // + or -
            let sign = b[index] == 0x2B ? 1 : -1
            let rest = b.count - index - 1
            let hours: Int?, minutes: Int?
            if rest == 5, b[index + 3] == 0x3A {
                hours = digits(index + 1, 2); minutes = digits(index + 4, 2)
            } else if rest == 4 {
                hours = digits(index + 1, 2); minutes = digits(index + 3, 2)
            } else {
                return nil
            }
            guard let hours, let minutes, hours < 24, minutes < 60 else { return nil }
            offsetSeconds = sign * (hours * 3600 + minutes * 60)
        default:
            return nil
        }
        let days = daysFromCivil(year: year, month: month, day: day)
        let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - offsetSeconds
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }

    /// `2023-08-28T18:27:45Z`: UTC, whole seconds; sorts correctly as text.
    public static func format(_ date: Date) -> String {
        let total = Int(date.timeIntervalSince1970.rounded(.down))
        let days = total >= 0 ? total / 86_400 : (total - 86_399) / 86_400
        let secondsOfDay = total - days * 86_400
        let (year, month, day) = civilFromDays(days)
        guard (0...9999).contains(year) else {
            return formatYearOutsideFourDigits(year, month, day, secondsOfDay)
        }
        // Twenty bytes written in place: every stored commit has two of these, and
        // eleven small strings joined are a measurable part of a REST first sync.
        return String(unsafeUninitializedCapacity: 20) { bytes in
            func put(_ value: Int, width: Int, at offset: Int) {
                var value = value
                for index in stride(from: offset + width - 1, through: offset, by: -1) {
                    bytes[index] = UInt8(ascii: "0") + UInt8(value % 10)
                    value /= 10
                }
            }
            put(year, width: 4, at: 0)
            put(month, width: 2, at: 5)
            put(day, width: 2, at: 8)
            put(secondsOfDay / 3600, width: 2, at: 11)
            put(secondsOfDay / 60 % 60, width: 2, at: 14)
            put(secondsOfDay % 60, width: 2, at: 17)
            bytes[4] = UInt8(ascii: "-")
            bytes[7] = UInt8(ascii: "-")
            bytes[10] = UInt8(ascii: "T")
            bytes[13] = UInt8(ascii: ":")
            bytes[16] = UInt8(ascii: ":")
            bytes[19] = UInt8(ascii: "Z")
            return 20
        }
    }

    /// `2023-08-28T18:27:45.123Z`: `format`'s with milliseconds, for what is compared within a
    /// second (when a listing was last asked for); sorts correctly as text against its own kind.
    public static func formatMilliseconds(_ date: Date) -> String {
        let milliseconds = Int((date.timeIntervalSince1970 * 1000).rounded(.down)) % 1000
        let digits = String(milliseconds + (milliseconds < 0 ? 2000 : 1000)).dropFirst()
        return format(date).dropLast() + "." + digits + "Z"
    }

    /// Years before 0 or after 9999 (no commit has one; a hostile server may send
    /// one): written as they always were, the year's digits as they come.
    private static func formatYearOutsideFourDigits(_ year: Int, _ month: Int, _ day: Int, _ secondsOfDay: Int) -> String {
        func pad(_ value: Int, _ width: Int) -> String {
            let text = String(value)
            return text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
        }
        return
            "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(secondsOfDay / 3600, 2)):\(pad(secondsOfDay / 60 % 60, 2)):\(pad(secondsOfDay % 60, 2))Z"
    }

    /// Gregorian month lengths, so `2024-02-30` is refused rather than rolled into March.
    static func daysInMonth(_ month: Int, year: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    // Howard Hinnant's days_from_civil / civil_from_days (proleptic Gregorian).
    static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    static func civilFromDays(_ days: Int) -> (Int, Int, Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
