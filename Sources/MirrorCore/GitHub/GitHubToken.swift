import Foundation

/// A GitHub token and where it came from. The value is never printed: its
/// description names only the source, so it is safe in any log or error.
public struct GitHubToken: Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    let value: String
    /// e.g. "environment variable GITHUB_TOKEN" or "file /etc/commits-mirror/token".
    public let source: String

    public init(value: String, source: String) {
        self.value = value
        self.source = source
    }

    public var description: String { "<token from \(source)>" }
    public var debugDescription: String { description }

    /// `GITHUB_TOKEN`, else `GH_TOKEN` (the GitHub CLI's name), ignoring empty values.
    public static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> GitHubToken? {
        for variable in ["GITHUB_TOKEN", "GH_TOKEN"] {
            if let value = environment[variable]?.trimmingCharacters(in: .whitespacesAndNewlines), !value.isEmpty {
                return GitHubToken(value: value, source: "environment variable \(variable)")
            }
        }
        return nil
    }
}
