import Foundation

/// An installation access token and when GitHub says it expires. Never
/// printed: the description says only when it expires.
struct InstallationToken: Sendable, CustomStringConvertible {
    let value: String
    let expiresAt: Date
    let receivedAt: Date

    /// The longest a token is refreshed ahead of `expires_at`.
    static let refreshLead: TimeInterval = 300

    /// When to mint the next one: 5 minutes before `expires_at` (a request
    /// started just before expiry may still be running; GitHub checks each
    /// request when it arrives), or a quarter of the token's life before it
    /// when that is shorter, so tokens of seconds (tests) still serve requests.
    var refreshAt: Date {
        let lifetime = max(0, expiresAt.timeIntervalSince(receivedAt))
        return expiresAt.addingTimeInterval(-min(Self.refreshLead, lifetime / 4))
    }

    func isDue(at now: Date) -> Bool { now >= refreshAt }

    var description: String { "<installation token expiring \(ISO8601DateFormatter().string(from: expiresAt))>" }
}
