// Date parsing and formatting without DateFormatter: fast, locale-free, and exact to the second.

enum Timestamp {
    /// Parses `YYYY-MM-DD`, optionally followed by `THH:MM[:SS[.fff]]` and `Z`, `±HH:MM`, `±HHMM` or `±HH`.
    /// No zone means UTC. A space stands for `+`, because an unencoded `+` in a query decodes to one.
    /// Returns seconds since 1970 (fractions truncated).
    static func parseISO8601(_ text: some StringProtocol) -> Int64? {
        let b = Array(text.utf8)
        var i = 0
        func number(_ digits: Int) -> Int? {
            guard i + digits <= b.count else { return nil }
            var v = 0
            for k in i..<(i + digits) {
                let c = b[k]
                guard c >= 48, c <= 57 else { return nil }
                v = v * 10 + Int(c - 48)
            }
            i += digits
            return v
        }
        func expect(_ c: UInt8) -> Bool {
            guard i < b.count, b[i] == c else { return false }
            i += 1
            return true
        }
        guard let year = number(4), expect(UInt8(ascii: "-")), let month = number(2), expect(UInt8(ascii: "-")),
            let day = number(2), (1...12).contains(month), (1...31).contains(day)
        else { return nil }
        var seconds = 0
        if i < b.count, b[i] == UInt8(ascii: "T") || b[i] == UInt8(ascii: "t") {
            i += 1
            guard let h = number(2), expect(UInt8(ascii: ":")), let m = number(2), h < 24, m < 60 else { return nil }
            var s = 0
            if expect(UInt8(ascii: ":")) {
                guard let sec = number(2), sec <= 60 else { return nil }
                s = sec
                if expect(UInt8(ascii: ".")) {
                    while i < b.count, b[i] >= 48, b[i] <= 57 { i += 1 }
                }
            }
            seconds = h * 3600 + m * 60 + s
        }
        var offset = 0
        if i < b.count {
            switch b[i] {
            case UInt8(ascii: "Z"), UInt8(ascii: "z"):
                i += 1
            case UInt8(ascii: "+"), UInt8(ascii: " "), UInt8(ascii: "-"):
                let sign = b[i] == UInt8(ascii: "-") ? -1 : 1
                i += 1
                guard let oh = number(2) else { return nil }
                var om = 0
                if i < b.count {
                    _ = expect(UInt8(ascii: ":"))
                    guard let mm = number(2) else { return nil }
                    om = mm
                }
                offset = sign * (oh * 3600 + om * 60)
            default:
                return nil
            }
        }
        guard i == b.count else { return nil }
        return daysFromCivil(year: year, month: month, day: day) * 86400 + Int64(seconds - offset)
    }

    /// `2023-08-28T18:27:45Z`
    static func iso8601UTC(_ epoch: Int64) -> String {
        let (y, mo, d, h, mi, s, _) = components(epoch)
        return String(unsafeUninitializedCapacity: 20) { out in
            var i = 0
            func put(_ value: Int, _ width: Int) {
                var v = value
                for k in stride(from: i + width - 1, through: i, by: -1) {
                    out[k] = UInt8(48 + v % 10)
                    v /= 10
                }
                i += width
            }
            func put(_ c: Unicode.Scalar) {
                out[i] = UInt8(ascii: c)
                i += 1
            }
            put(y, 4); put("-"); put(mo, 2); put("-"); put(d, 2); put("T")
            put(h, 2); put(":"); put(mi, 2); put(":"); put(s, 2); put("Z")
            return i
        }
    }

    private static let weekdays = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"]  // 1970-01-01 was a Thursday
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// RFC 9110 IMF-fixdate: `Mon, 28 Aug 2023 18:27:45 GMT`.
    static func httpDate(_ epoch: Int64) -> String {
        let (y, mo, d, h, mi, s, days) = components(epoch)
        func two(_ v: Int) -> String { v < 10 ? "0\(v)" : String(v) }
        return "\(weekdays[Int(((days % 7) + 7) % 7)]), \(two(d)) \(months[mo - 1]) \(y) \(two(h)):\(two(mi)):\(two(s)) GMT"
    }

    private static func components(_ epoch: Int64) -> (Int, Int, Int, Int, Int, Int, Int64) {
        let days = epoch >= 0 ? epoch / 86400 : (epoch - 86399) / 86400
        let secs = Int(epoch - days * 86400)
        let (y, m, d) = civilFromDays(days)
        return (y, m, d, secs / 3600, (secs % 3600) / 60, secs % 60, days)
    }

    // Howard Hinnant's days_from_civil / civil_from_days.
    static func daysFromCivil(year: Int, month: Int, day: Int) -> Int64 {
        let y = Int64(month <= 2 ? year - 1 : year)
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = Int64((month + 9) % 12)
        let doy = (153 * mp + 2) / 5 + Int64(day) - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146097 + doe - 719468
    }

    static func civilFromDays(_ days: Int64) -> (Int, Int, Int) {
        let z = days + 719468
        let era = (z >= 0 ? z : z - 146096) / 146097
        let doe = z - era * 146097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = Int(doy - (153 * mp + 2) / 5 + 1)
        let m = Int(mp < 10 ? mp + 3 : mp - 9)
        let y = Int(yoe + era * 400) + (m <= 2 ? 1 : 0)
        return (y, m, d)
    }
}
