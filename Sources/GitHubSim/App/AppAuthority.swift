// The App's side of GitHub's state: the installation tokens it issued and when each expires.

import Foundation
import Synchronization

/// Who a bearer token is, in App mode.
enum InstallationTokenCheck: Equatable {
    /// Not one GitHub issues to installations (no `ghs_` prefix): a personal token, say.
    case notAnInstallationToken
    case valid(SimInstallation)
    /// Issued, and past its `expires_at`: GitHub answers 401 "Bad credentials".
    case expired
    /// Shaped like one, never issued here.
    case unknown
}

final class AppAuthority: Sendable {
    let app: SimApp

    private struct Issued {
        var installation: SimInstallation
        /// Epoch seconds, as `expires_at` says it (whole seconds).
        var expiresAt: Int64
    }

    struct Counters: Sendable, Equatable {
        var tokensIssued = 0
        var expiredTokenRefusals = 0
        var jwtRefusals = 0
    }

    private struct State {
        var issued: [String: Issued] = [:]
        var counters = Counters()
    }

    private let state = Mutex(State())

    init(app: SimApp) {
        self.app = app
    }

    var counters: Counters { state.withLock { $0.counters } }

    func resetCounters() { state.withLock { $0.counters = Counters() } }

    func installation(id: Int) -> SimInstallation? { app.installations.first { $0.id == id } }

    func installation(on account: Substring) -> SimInstallation? {
        app.installations.first { $0.account.lowercased() == account.lowercased() }
    }

    /// nil when the JWT is valid now, else GitHub's message (counted).
    func refusal(ofJWT token: String) -> String? {
        let problem = AppJWTVerifier.problem(with: token, app: app, now: Int64(app.now().timeIntervalSince1970))
        if problem != nil { state.withLock { $0.counters.jwtRefusals += 1 } }
        return problem
    }

    /// A new token for `installation`, expiring `tokenLifetime` from now (whole seconds, as
    /// GitHub's `expires_at` is written).
    func issueToken(for installation: SimInstallation) -> (token: String, expiresAt: Int64) {
        let lifetime = max(1, app.tokenLifetime.components.seconds)
        let expiresAt = Int64(app.now().timeIntervalSince1970) + lifetime
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
        var generator = SystemRandomNumberGenerator()
        let token = "ghs_" + String((0..<36).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &generator)] })
        state.withLock { state in
            // Expired tokens are kept for a day, so they are still told apart from unknown ones.
            state.issued = state.issued.filter { $0.value.expiresAt > expiresAt - 86_400 }
            state.issued[token] = Issued(installation: installation, expiresAt: expiresAt)
            state.counters.tokensIssued += 1
        }
        return (token, expiresAt)
    }

    /// Forgets `token`: from now on it is refused like one never issued.
    func revoke(_ token: String) {
        _ = state.withLock { $0.issued.removeValue(forKey: token) }
    }

    func check(_ token: String) -> InstallationTokenCheck {
        guard token.hasPrefix("ghs_") else { return .notAnInstallationToken }
        let now = app.now().timeIntervalSince1970
        return state.withLock { state in
            guard let issued = state.issued[token] else { return .unknown }
            guard now < Double(issued.expiresAt) else {
                state.counters.expiredTokenRefusals += 1
                return .expired
            }
            return .valid(issued.installation)
        }
    }
}
