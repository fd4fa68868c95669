/// What went wrong authenticating as a GitHub App. Each names the App by its
/// id, never the key, a JWT or a token; server text in them is redacted.
public enum GitHubAppError: Error, Sendable, CustomStringConvertible {
    /// 401 to the App's JWT: another App's key, a wrong app id, or a clock far off.
    case jwtRefused(appID: Int, message: String)
    /// 404 minting a token: no such installation of this App.
    case installationNotFound(appID: Int, installationID: Int)
    /// No installation of the App on the account.
    case notInstalled(appID: Int, owner: String, installedOn: [String])
    /// 401 to an installation token minted a moment before.
    case tokenRefused(appID: Int, installationID: Int)
    /// The answer to a mint did not hold a usable token and expiry.
    case malformedToken(appID: Int, detail: String)
    /// Minting a token failed on the way (no answer in time, a server error): `failure`
    /// names the endpoint. Remembered for a while (`GitHubApp.failureMemory`), so each
    /// request that needs a token meanwhile fails at once instead of waiting on it again.
    case tokenEndpointFailed(appID: Int, failure: String)

    public var description: String {
        switch self {
        case .jwtRefused(let app, let message):
            return
                "GitHub refused the JWT of GitHub App \(app) (401: \(message)): check the app id and that the key is the App's current private key, and that this machine's clock is right"
        case .installationNotFound(let app, let installation):
            return
                "GitHub App \(app) has no installation \(installation) (404): check the installation id in the App's settings, or leave it out to use the App's only installation on the owner"
        case .notInstalled(let app, let owner, let installedOn):
            let elsewhere =
                installedOn.isEmpty ? "it has no installation" : "it is installed on \(installedOn.prefix(10).joined(separator: ", "))"
            return "GitHub App \(app) is not installed on \(owner) (\(elsewhere)): install it on \(owner), or name the installation id"
        case .tokenRefused(let app, let installation):
            return
                "GitHub refused a freshly minted token of GitHub App \(app) installation \(installation) (401): check that the installation is not suspended and still has access"
        case .malformedToken(let app, let detail):
            return "GitHub App \(app): the access token answer is unusable (\(detail))"
        case .tokenEndpointFailed(let app, let failure):
            return "GitHub App \(app) got no installation token: \(failure)"
        }
    }
}
