import Foundation

/// The `Authorization` a git host may receive: the API token (or a GitHub
/// App's installation token) as HTTP Basic `x-access-token:<token>`, as
/// GitHub's git hosts take it. Built only by `forClone(url:apiURL:token:)`
/// and `GitHubClient.gitCredentials(forClone:)`; never printed.
public struct GitCredentials: Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    let authorization: String
    let tokenSource: String

    /// The Basic user names the token is sent with (`SecretRedactor` removes each `user:token` encoding).
    static let basicUsers = ["x-access-token"]

    public var description: String { "<git credentials from \(tokenSource)>" }
    public var debugDescription: String { description }

    /// Credentials for `cloneURL`, or `nil` when the token must not go there.
    /// The token goes only to the API's own web host (`api.github.com` serves
    /// `github.com`, `HOST/api/v3` serves `HOST`, a loopback API serves its own
    /// host), on the API's scheme and port, so only over https unless the API
    /// URL itself is plain http. A clone URL with user information gets nothing.
    public static func forClone(url cloneURL: String, apiURL: String, token: GitHubToken?) -> GitCredentials? {
        guard let token, mayReceiveToken(cloneURL: cloneURL, apiURL: apiURL) else { return nil }
        return GitCredentials(accessToken: token.value, source: token.source)
    }

    fileprivate init(accessToken: String, source: String) {
        let basic = Data("\(Self.basicUsers[0]):\(accessToken)".utf8).base64EncodedString()
        self.authorization = "Basic \(basic)"
        self.tokenSource = source
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

extension GitHubClient {
    /// Credentials for fetching `cloneURL` over git: the client's token, or its
    /// App's installation token (minted when due), under the same rule
    /// (`GitCredentials.mayReceiveToken`); `nil` for any other host, and no
    /// token is minted for one.
    public func gitCredentials(forClone cloneURL: String) async throws -> GitCredentials? {
        guard GitCredentials.mayReceiveToken(cloneURL: cloneURL, apiURL: configuration.apiURL) else { return nil }
        if let token = configuration.token {
            return GitCredentials.forClone(url: cloneURL, apiURL: configuration.apiURL, token: token)
        }
        guard let app = configuration.app, let installationToken = try await currentInstallationToken() else { return nil }
        return GitCredentials(accessToken: installationToken.value, source: app.source)
    }
}
