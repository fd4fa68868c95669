#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The environment variables a setting may come from: the process's own, read one
/// at a time with `getenv`, or a given set (tests, and callers that edit a copy).
///
/// Why not `ProcessInfo.processInfo.environment`: it copies every variable into a
/// new dictionary on each call, and the first dictionary keyed by `String` costs a
/// scan of all protocol conformances, a large share of a `commitsctl query` that
/// reads two or three variables (docs/MEASURED-REASONS.md, "Measured reasons: a
/// reading command's start-up").
public struct EnvironmentVariables: Sendable, ExpressibleByDictionaryLiteral {
    private let given: [String: String]?

    /// This process's environment, read when asked.
    public static var process: EnvironmentVariables { EnvironmentVariables(given: nil) }

    public init(_ variables: [String: String]) { given = variables }

    public init(dictionaryLiteral elements: (String, String)...) {
        given = Dictionary(elements) { _, last in last }
    }

    private init(given: [String: String]?) { self.given = given }

    public subscript(name: String) -> String? {
        if let given { return given[name] }
        return getenv(name).map { String(cString: $0) }
    }

    /// The value, unless it is unset or empty (which the settings treat alike).
    public func nonEmpty(_ name: String) -> String? {
        self[name].flatMap { $0.isEmpty ? nil : $0 }
    }
}
