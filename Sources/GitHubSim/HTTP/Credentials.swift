// The Authorization header: a token for the API (and the rate-limit bucket it selects), HTTP Basic
// for git.

import Foundation

enum Credentials: Equatable {
    case anonymous
    case token(String)
    /// An Authorization header we cannot use (Basic auth, an empty token…): GitHub answers 401.
    case malformed

    /// An API request's `Authorization`: `Bearer` or `token` and the token.
    init(authorization: String?) {
        self.init(authorization) { scheme, value in ["bearer", "token"].contains(scheme) ? value : nil }
    }

    /// A git request's `Authorization`: HTTP Basic, whose password is the token.
    init(basicAuthorization authorization: String?) {
        self.init(authorization) { scheme, value in
            guard scheme == "basic", let decoded = Data(base64Encoded: String(value)),
                let text = String(data: decoded, encoding: .utf8), let colon = text.firstIndex(of: ":")
            else { return nil }
            return text[text.index(after: colon)...]
        }
    }

    /// None without a header; else the non-empty token `token` reads from the
    /// header's scheme and value, or malformed.
    private init(_ authorization: String?, token: (_ scheme: String, _ value: Substring) -> Substring?) {
        guard let authorization else {
            self = .anonymous
            return
        }
        guard let (scheme, value) = Self.split(authorization), let token = token(scheme, value), !token.isEmpty else {
            self = .malformed
            return
        }
        self = .token(String(token))
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
