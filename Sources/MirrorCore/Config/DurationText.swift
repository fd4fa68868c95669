import Foundation

/// Durations as configuration files spell them: `90s`, `15m`, `1h`, `1h30m`,
/// or a bare number of seconds.
public enum DurationText {
    public static let expectedForm = "a duration such as 90s, 15m, 1h or 1h30m (or a number of seconds)"

    /// `nil` unless `text` is a positive duration in the forms above. One too
    /// long for `Int` seconds (`99999999999999999h`) saturates at `Int.max` seconds.
    public static func parse(_ text: String) -> Duration? {
        let text = text.trimmingCharacters(in: .whitespaces).lowercased()
        if let seconds = Int(text) { return seconds > 0 ? .seconds(seconds) : nil }
        if !text.isEmpty, text.allSatisfy({ $0.isASCII && $0.isNumber }) { return .seconds(Int.max) }
        var total = 0
        var number = ""
        var sawUnit = false
        for character in text {
            if character.isASCII, character.isNumber {
                number.append(character)
                continue
            }
            let scale: Int
            switch character {
            case "h": scale = 3600
            case "m": scale = 60
            case "s": scale = 1
            default: return nil
            }
            guard !number.isEmpty else { return nil }
            let value = Int(number) ?? .max
            let (scaled, overflowed) = value.multipliedReportingOverflow(by: scale)
            let (sum, overflowedSum) = total.addingReportingOverflow(scaled)
            total = overflowed || overflowedSum ? .max : sum
            number = ""
            sawUnit = true
        }
        guard number.isEmpty, sawUnit, total > 0 else { return nil }
        return .seconds(total)
    }

    /// `1h30m`, `15m`, `90s` → `1m30s`, `0.5s` for sub-second test values.
    public static func format(_ duration: Duration) -> String {
        let components = duration.components
        if components.attoseconds != 0 || components.seconds == 0 {
            let seconds = Double(components.seconds) + Double(components.attoseconds) / 1e18
            return String(format: "%gs", seconds)
        }
        var seconds = components.seconds
        var text = ""
        if seconds >= 3600 { text += "\(seconds / 3600)h"; seconds %= 3600 }
        if seconds >= 60 { text += "\(seconds / 60)m"; seconds %= 60 }
        if seconds > 0 { text += "\(seconds)s" }
        return text
    }
}
