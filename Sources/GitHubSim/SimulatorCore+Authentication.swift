// Who a request authenticates as and which rate-limit bucket it spends: the client's IP without
// credentials, the token's bucket with a personal token, and in App mode the App's bucket for a
// valid JWT and one bucket per installation for its tokens (GitHub's separate limits).

import Foundation
import NIOHTTP1

/// Who a request authenticates as.
enum Caller: Equatable {
    case anonymous
    case token(String)
    /// An installation token, unexpired.
    case installation(SimInstallation)
    /// The App itself, with a valid JWT.
    case app

    var isAuthenticated: Bool { self != .anonymous }

    /// Whether the caller may see `owner`'s private repositories: a personal token sees every
    /// one here; an installation only its account's; the App itself none (it must use an
    /// installation token).
    func seesPrivate(owner: String) -> Bool {
        switch self {
        case .anonymous, .app: return false
        case .token: return true
        case .installation(let installation): return installation.account.lowercased() == owner.lowercased()
        }
    }
}

extension SimulatorCore {
    struct Bucket {
        var key: String
        var label: String
        var limit: Int
    }

    enum Authentication {
        case accepted(Caller, Bucket)
        /// 401, charged to the client's IP, whose budget it shows.
        case refused(SimResponse)
    }

    func authenticate(_ request: SimRequest) -> Authentication {
        let ipKey = Credentials.bucketKey(ip: request.remoteIP)
        let ipBucket = Bucket(key: ipKey, label: ipKey, limit: configuration.unauthenticatedLimit)
        func refused(_ message: String) -> Authentication {
            var response = SimResponse.error(.unauthorized, message)
            addRateHeaders(&response, charge(ipBucket) ?? peek(ipBucket))
            return .refused(response)
        }
        let token: String
        switch Credentials(authorization: request.header("Authorization")) {
        case .anonymous: return .accepted(.anonymous, ipBucket)
        case .malformed: return refused("Bad credentials")
        case .token(let value): token = value
        }
        if let authority = appAuthority {
            if AppJWTVerifier.looksLikeJWT(token) {
                if let problem = authority.refusal(ofJWT: token) { return refused(problem) }
                let key = "app:\(authority.app.appID)"
                return .accepted(.app, Bucket(key: key, label: key, limit: configuration.authenticatedLimit))
            }
            switch authority.check(token) {
            case .valid(let installation):
                let key = "installation:\(installation.id)"
                return .accepted(.installation(installation), Bucket(key: key, label: key, limit: authority.app.installationLimit))
            case .expired, .unknown:
                return refused("Bad credentials")
            case .notAnInstallationToken:
                break
            }
        }
        guard configuration.validTokens?.contains(token) ?? true else { return refused("Bad credentials") }
        return .accepted(
            .token(token),
            Bucket(key: "token " + token, label: Credentials.bucketKey(token: token), limit: configuration.authenticatedLimit))
    }

    /// Whether a git request's Basic password is accepted: in App mode an unexpired installation
    /// token (an expired or unknown one is refused), else a personal token under `validTokens`.
    func acceptsGitPassword(_ token: String) -> (accepted: Bool, caller: Caller) {
        if let authority = appAuthority {
            switch authority.check(token) {
            case .valid(let installation): return (true, .installation(installation))
            case .expired, .unknown: return (false, .anonymous)
            case .notAnInstallationToken: break
            }
        }
        let accepted = configuration.validTokens?.contains(token) ?? true
        return (accepted, accepted ? .token(token) : .anonymous)
    }
}
