// GitHub App mode: the App whose JWTs the simulator accepts, and its installations.

import Foundation
import _CryptoExtras

/// One installation of the App: it sees every repository of `account` (repository selection
/// "all"), private ones included, and spends its own rate-limit bucket.
public struct SimInstallation: Sendable, Equatable {
    public var id: Int
    /// The organization or user it is installed on.
    public var account: String

    public init(id: Int, account: String) {
        self.id = id
        self.account = account
    }
}

/// A GitHub App as GitHub sees it: its id, its public key (JWTs are checked against it) and its
/// installations.
public struct SimApp: Sendable {
    public var appID: Int
    public var publicKey: _RSA.Signing.PublicKey
    public var installations: [SimInstallation]
    /// How long an installation token lives (GitHub: one hour; seconds in tests).
    public var tokenLifetime: Duration = .seconds(3600)
    /// Each installation's budget per rate-limit window (GitHub: 5,000 an hour and more for large ones).
    public var installationLimit = 5000
    /// The time tokens are issued and checked against, and JWTs verified at: the wall clock, or a
    /// test's clock, shared with its client, that it moves past a token's expiry instead of waiting.
    public var now: @Sendable () -> Date = Date.init

    /// `keyPEM`: the App's public key (`BEGIN PUBLIC KEY`), or its private key, whose public half is used.
    public init(appID: Int, keyPEM: String, installations: [SimInstallation]) throws {
        self.appID = appID
        self.installations = installations
        if let publicKey = try? _RSA.Signing.PublicKey(pemRepresentation: keyPEM) {
            self.publicKey = publicKey
        } else {
            do {
                publicKey = try _RSA.Signing.PrivateKey(pemRepresentation: keyPEM).publicKey
            } catch {
                throw SimulatorError(description: "the App key is not a PEM RSA public or private key of 2048 bits or more")
            }
        }
    }

    public init(appID: Int, publicKey: _RSA.Signing.PublicKey, installations: [SimInstallation]) {
        self.appID = appID
        self.publicKey = publicKey
        self.installations = installations
    }
}
