// The Authorization header: a token for the API (and the rate-limit bucket it selects), HTTP Basic
// for git.

import Foundation

enum Credentials: Equatable {
    case anonymous
    case token(String)
    /// An Authorization header we cannot use (Basic auth, an empty token…): GitHub answers 401.
    case malformed

    init(authorization: String?) {
        guard let authorization else {
            self = .anonymous
            return
        }
        guard let (scheme, token) = Self.split(authorization), ["bearer", "token"].contains(scheme) else {
            self = .malformed
            return
        }
        self = token.isEmpty ? .malformed : .token(String(token))
    }

    /// `<scheme> <value>`: the scheme lowercased, the value trimmed; nil without both.
    static func split(_ authorization: String) -> (scheme: String, value: Substring)? {
        let parts = authorization.trimmingASCIISpaces.split(separator: " ", maxSplits: 1)
        guard parts.count == 2 else { return nil }
        return (parts[0].lowercased(), parts[1].trimmingASCIISpaces)
    }

    /// The redacted bucket key shown in `SimStats.rateLimitUsed`.
    static func bucketKey(token: String) -> String { "token:\(token.prefix(4))…" }
    static func bucketKey(ip: String) -> String { "ip:\(ip)" }
}

/// The `Authorization` of a git request: HTTP Basic, whose password is the token.
enum BasicCredentials: Equatable {
    case anonymous
    case token(String)
    case malformed

    init(authorization: String?) {
        guard let authorization else {
            self = .anonymous
            return
        }
        guard let (scheme, value) = Credentials.split(authorization), scheme == "basic",
            let decoded = Data(base64Encoded: String(value)),
            let text = String(data: decoded, encoding: .utf8), let colon = text.firstIndex(of: ":")
        else {
            self = .malformed
            return
        }
        let token = text[text.index(after: colon)...]
        self = token.isEmpty ? .malformed : .token(String(token))
    }
}
