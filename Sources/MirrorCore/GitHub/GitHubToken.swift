import Foundation

/// A GitHub token and where it came from. The value is never printed: its
/// description names only the source, so it is safe in any log or error.
/// Tokens are read from the environment or a file, never from the command line.
public struct GitHubToken: Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    let value: String
    /// e.g. "environment variable GITHUB_TOKEN" or "file /etc/commits-mirror/token".
    public let source: String
    /// Where it came from without naming the place: what unauthenticated
    /// endpoints (`/metrics` labels) may show.
    public internal(set) var kind: Kind

    public enum Kind: String, Sendable {
        case environment, file
        /// The systemd credential `github-token`.
        case credential
    }

    public init(value: String, source: String) {
        self.value = value
        self.source = source
        self.kind = source.hasPrefix("environment") ? .environment : .file
    }

    public var description: String { "<token from \(source)>" }
    public var debugDescription: String { description }

    /// The systemd credential name (`LoadCredential=github-token:…`).
    public static let credentialName = "github-token"

    /// Finds the token, first match wins: an explicit `tokenFile`,
    /// `$GITHUB_TOKEN`, `$GH_TOKEN`, the systemd credential
    /// `$CREDENTIALS_DIRECTORY/github-token`, then `configuredFile` (the config file's
    /// `token_file`). `warn` receives advice such as an over-readable file.
    public static func resolve(
        tokenFile: String? = nil, configuredFile: String? = nil,
        environment: [String: String] = ProcessInfo.processInfo.environment,
        warn: (String) -> Void = { _ in }
    ) throws -> GitHubToken? {
        if let tokenFile { return try fromFile(tokenFile, warn: warn) }
        for variable in ["GITHUB_TOKEN", "GH_TOKEN"] {
            if let value = environment[variable]?.trimmingCharacters(in: .whitespacesAndNewlines), !value.isEmpty {
                return try checked(value, source: "environment variable \(variable)")
            }
        }
        if let path = SecretFile.systemdCredential(credentialName, environment: environment) {
            var token = try fromFile(path, warn: warn)
            token.kind = .credential
            return token
        }
        if let configuredFile { return try fromFile(configuredFile, warn: warn) }
        return nil
    }

    /// Reads a token file: the token alone, surrounding whitespace and newlines trimmed.
    /// A second line is refused rather than ignored: it is a pasted header or a mistake.
    public static func fromFile(_ path: String, warn: (String) -> Void = { _ in }) throws -> GitHubToken {
        let contents = try SecretFile.contents(
            of: path, naming: "token file \(path)", shownAs: "token file \(path)", warn: warn,
            unreadable: { TokenError.unreadable(path: path, reason: $0) })
        let text = contents.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty else {
            throw TokenError.empty(path: path)
        }
        return try checked(text, source: "file \(path)")
    }

    /// Refuses a value with a control character or whitespace inside: sent as
    /// `Authorization: Bearer …`, a CR or LF would inject header lines.
    static func checked(_ value: String, source: String) throws -> GitHubToken {
        guard
            !value.unicodeScalars.contains(where: {
                [.control, .format].contains($0.properties.generalCategory) || $0.properties.isWhitespace
            })
        else { throw TokenError.invalidCharacters(source: source) }
        return GitHubToken(value: value, source: source)
    }

    public enum TokenError: Error, Sendable, CustomStringConvertible {
        case unreadable(path: String, reason: String)
        case empty(path: String)
        /// The value holds a control character or whitespace (never shown).
        case invalidCharacters(source: String)

        public var description: String {
            switch self {
            case .unreadable(let path, let reason):
                return "cannot read the token file \(path): \(reason); check the path and that this user may read it"
            case .empty(let path):
                return "the token file \(path) is empty; put the token on its first line"
            case .invalidCharacters(let source):
                return
                    "the token from \(source) contains a control character or whitespace; set it to the token alone (no spaces, line breaks or extra header lines)"
            }
        }
    }
}
