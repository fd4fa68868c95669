import Foundation

/// Weekdays and times of day, as git's approxidate reads them:
/// `last tuesday`, `tuesday` (the latest one before today, at this time of
/// day), `noon`, `midnight`, `tea` (17:00; today's, or yesterday's when it is
/// still to come), and combinations such as `yesterday noon` or `last friday midnight`.
extension DateExpression {
    static let weekdays = ["sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"]
    static let timesOfDay: [String: Int] = ["midnight": 0, "noon": 12, "tea": 17]

    static func named(_ text: String, now: Date, calendar: Calendar) -> Date? {
        let words = text.split(separator: " ").map(String.init)
        guard words.contains(where: { timesOfDay[$0] != nil || weekday($0) != nil }) else { return nil }
        var date = now
        var index = 0
        while index < words.count {
            let word = words[index]
            if word == "last", index + 1 < words.count, weekday(words[index + 1]) != nil {
                index += 1
                continue  // `last tuesday` is `tuesday`: the latest one before today
            }
            if let day = weekday(word) {
                var back = (calendar.component(.weekday, from: date) - 1 - day + 7) % 7
                if back == 0 { back = 7 }
                guard let earlier = calendar.date(byAdding: .day, value: -back, to: date) else { return nil }
                date = earlier
            } else if let hour = timesOfDay[word] {
                // A time still to come today means yesterday's (git's date_time).
                if calendar.component(.hour, from: date) < hour {
                    guard let earlier = calendar.date(byAdding: .day, value: -1, to: date) else { return nil }
                    date = earlier
                }
                guard let set = calendar.date(bySettingHour: hour, minute: 0, second: 0, of: date) else { return nil }
                date = set
            } else if word == "yesterday" {
                date = date.addingTimeInterval(-86_400)
            } else if word == "today" || word == "at" {
                // no change
            } else {
                return nil
            }
            index += 1
        }
        return date
    }

    /// 0 = Sunday; git accepts any prefix of three or more letters.
    private static func weekday(_ word: String) -> Int? {
        guard word.count >= 3 else { return nil }
        let name = word.hasSuffix("s") && !weekdays.contains(word) ? String(word.dropLast()) : word
        return weekdays.firstIndex { $0.hasPrefix(name) }
    }
}
