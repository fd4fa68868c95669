/// A configuration file that cannot be used, as one line naming the file, the
/// line (when known), the key, what is wrong and the form that was expected:
///
///     /etc/commits-mirror/config.yaml:7: repositories[2].interval: '5 minutes' is not a duration; expected a duration such as 90s, 15m, 1h or 1h30m (or a number of seconds)
public struct ConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    public var file: String
    public var line: Int?
    public var column: Int?
    /// The setting, as a path: `store`, `repositories[2].interval`.
    public var key: String?
    public var problem: String
    public var expected: String?

    public init(
        file: String, line: Int? = nil, column: Int? = nil, key: String? = nil,
        problem: String, expected: String? = nil
    ) {
        self.file = file
        self.line = line
        self.column = column
        self.key = key
        self.problem = problem
        self.expected = expected
    }

    public var description: String {
        var text = file
        if let line {
            text += ":\(line)"
            if let column { text += ":\(column)" }
        }
        if !text.isEmpty { text += ": " }
        if let key { text += "\(key): " }
        text += problem
        if let expected { text += "; expected \(expected)" }
        return text
    }
}
