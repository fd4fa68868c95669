import Foundation

/// The `Authorization` a git host may receive: the API token as HTTP Basic
/// `x-access-token:<token>`, as GitHub's git hosts take it. Built only by
/// `forClone(url:apiURL:token:)`; never printed.
public struct GitCredentials: Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    let authorization: String
    let tokenSource: String

    public var description: String { "<git credentials from \(tokenSource)>" }
    public var debugDescription: String { description }

    /// `text` (a git server's words) without the credentials as they were
    /// sent (base64, which the API client's own redaction of the raw token
    /// does not recognise), in case the server echoed them.
    public func redact(_ text: String) -> String {
        let encoded = String(authorization.drop { $0 != " " }.dropFirst())
        guard !encoded.isEmpty else { return text }
        return text.replacingOccurrences(of: encoded, with: "[REDACTED]")
    }

    /// Credentials for `cloneURL`, or `nil` when the token must not go there.
    /// The token goes only to the API's own web host (`api.github.com` serves
    /// `github.com`, `HOST/api/v3` serves `HOST`, a loopback API serves its own
    /// host), on the API's scheme and port, so only over https unless the API
    /// URL itself is plain http. A clone URL with user information gets nothing.
    public static func forClone(url cloneURL: String, apiURL: String, token: GitHubToken?) -> GitCredentials? {
        guard let token, mayReceiveToken(cloneURL: cloneURL, apiURL: apiURL) else { return nil }
        let basic = Data("x-access-token:\(token.value)".utf8).base64EncodedString()
        return GitCredentials(authorization: "Basic \(basic)", tokenSource: token.source)
    }

    static func mayReceiveToken(cloneURL: String, apiURL: String) -> Bool {
        guard let api = APIOrigin(url: apiURL), let clone = APIOrigin(url: cloneURL),
            let apiPath = URLComponents(string: apiURL)?.path,
            clone.scheme == api.scheme, clone.port == api.port
        else { return false }
        let webHost: String
        if api.host == "api.github.com" {
            webHost = "github.com"
        } else if apiPath == "/api/v3" || apiPath == "/api/v3/" {
            webHost = api.host
        } else if ["127.0.0.1", "localhost", "::1", "[::1]"].contains(api.host) {
            webHost = api.host
        } else {
            return false
        }
        return clone.host == webHost
    }
}
