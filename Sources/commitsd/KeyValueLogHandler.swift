import Foundation
import Logging
import Synchronization

/// One line per event on stderr: level, message, then `key=value` metadata,
/// sorted by key. Under systemd (`$JOURNAL_STREAM` set) each line starts with
/// a `<N>` syslog priority, which journald turns into the entry's priority and
/// strips; it adds its own timestamp. Elsewhere lines start with a UTC
/// timestamp. Values with spaces or quotes are quoted; newlines and every other
/// control character (ESC, DEL, C1…) are escaped, so an event never spans lines
/// and text from a sender (a webhook's `ref`) cannot drive a terminal.
struct KeyValueLogHandler: LogHandler {
    var logLevel: Logger.Level
    var metadata: Logger.Metadata = [:]
    var metadataProvider: Logger.MetadataProvider?
    private let journal: Bool

    private static let output = Mutex(())

    init(level: Logger.Level, environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.logLevel = level
        self.journal = environment["JOURNAL_STREAM"].map { !$0.isEmpty } ?? false
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var merged = metadata
        if let provided = metadataProvider?.get() { merged.merge(provided) { _, new in new } }
        if let extra = event.metadata { merged.merge(extra) { _, new in new } }
        if let error = event.error, merged["error"] == nil { merged["error"] = "\(error)" }

        var line = journal ? "<\(Self.priority(event.level))>" : Self.timestamp() + " "
        line += event.level.rawValue
        line += " "
        line += Self.escape(event.message.description, quoteIfNeeded: false)
        for key in merged.keys.sorted() {
            line += " \(key)=\(Self.escape(Self.render(merged[key]!), quoteIfNeeded: true))"
        }
        line += "\n"
        Self.output.withLock { _ in
            FileHandle.standardError.write(Data(line.utf8))
        }
    }

    // MARK: - Formatting

    static func priority(_ level: Logger.Level) -> Int {
        switch level {
        case .trace, .debug: return 7
        case .info: return 6
        case .notice: return 5
        case .warning: return 4
        case .error: return 3
        case .critical: return 2
        }
    }

    static func render(_ value: Logger.Metadata.Value) -> String {
        switch value {
        case .string(let text): return text
        case .stringConvertible(let value): return value.description
        case .array(let values): return values.map(render).joined(separator: ",")
        case .dictionary(let values):
            return values.keys.sorted().map { "\($0):\(render(values[$0]!))" }.joined(separator: ",")
        }
    }

    static func escape(_ text: String, quoteIfNeeded: Bool) -> String {
        var escaped = ""
        var needsQuotes = text.isEmpty
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\n": escaped += "\\n"; needsQuotes = true
            case "\r": escaped += "\\r"; needsQuotes = true
            case "\t": escaped += "\\t"; needsQuotes = true
            case "\"": escaped += "\\\""; needsQuotes = true
            case "\\": escaped += "\\\\"
            case " ", "=": escaped.unicodeScalars.append(scalar); needsQuotes = true
            case _ where scalar.properties.generalCategory == .control || scalar == "\u{2028}" || scalar == "\u{2029}":
                escaped += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        guard quoteIfNeeded else { return escaped }
        return needsQuotes ? "\"\(escaped)\"" : escaped
    }

    static func timestamp() -> String {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        var time = tm()
        var seconds = now.tv_sec
        gmtime_r(&seconds, &time)
        return String(
            format: "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", time.tm_year + 1900, time.tm_mon + 1, time.tm_mday,
            time.tm_hour, time.tm_min, time.tm_sec, now.tv_nsec / 1_000_000)
    }
}
