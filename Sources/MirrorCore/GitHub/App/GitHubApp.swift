import Foundation
import Synchronization

/// A GitHub App installation the mirror authenticates as: the App's id and
/// key, which installation, and the installation token in use.
///
/// The token lives here, in memory only: minted when first needed, minted
/// again when it is due (`InstallationToken.refreshAt`) or GitHub refused it,
/// one mint at a time however many syncs ask. It is never written anywhere,
/// and every token and JWT is registered with the client's `SecretRedactor`
/// before it is sent.
public final class GitHubApp: Sendable, CustomStringConvertible {
    /// Which installation's tokens to mint.
    public enum Installation: Sendable, Equatable {
        /// `installation_id` from the configuration.
        case id(Int)
        /// The App's only installation on this account (`GET /app/installations`).
        case onlyOne(owner: String)
    }

    public let appID: Int
    public let installation: Installation
    let key: GitHubAppKey
    /// When "now" is, for the JWT's times and deciding whether the held token is
    /// due: the wall clock, or a test's own clock so its verdicts do not depend on load.
    let now: @Sendable () -> Date

    /// How long a failed mint is remembered: requests meanwhile fail at once with its
    /// error, so a hung credential endpoint costs one timeout, not one per repository.
    public static let failureMemory: Duration = .seconds(60)

    private struct State {
        var installationID: Int?
        var token: InstallationToken?
        var minting: Task<InstallationToken, any Error>?
        var minted = 0
        /// The last mint's failure and when it is forgotten.
        var failure: (error: GitHubAppError, until: Date)?
    }

    private let state = Mutex(State())

    public init(appID: Int, installation: Installation, key: GitHubAppKey, now: @escaping @Sendable () -> Date = Date.init) {
        self.appID = appID
        self.installation = installation
        self.key = key
        self.now = now
        if case .id(let id) = installation { state.withLock { $0.installationID = id } }
    }

    /// What errors, logs, `status` and metrics may name: never the key, a JWT or a token.
    public var source: String { "GitHub App \(appID) (key from \(key.source))" }
    public var description: String { "<\(source)>" }

    /// Installation tokens minted so far by this process.
    public var tokensMinted: Int { state.withLock { $0.minted } }

    /// The installation id, once configured or looked up.
    var knownInstallationID: Int? { state.withLock { $0.installationID } }

    func rememberInstallationID(_ id: Int) { state.withLock { $0.installationID = id } }

    /// The token to send now: the one held unless it is due, else a new one
    /// from `mint`. Callers that arrive during a mint wait for the same one, and
    /// those within `failureMemory` of a failed mint get its error at once.
    func token(minting mint: @escaping @Sendable () async throws -> InstallationToken) async throws -> InstallationToken {
        enum Step {
            case held(InstallationToken)
            case wait(Task<InstallationToken, any Error>)
            case failed(GitHubAppError)
        }
        let step: Step = state.withLock { state in
            if let token = state.token, !token.isDue(at: now()) { return .held(token) }
            if let minting = state.minting { return .wait(minting) }
            if let failure = state.failure, now() < failure.until { return .failed(failure.error) }
            let minting = Task { try await mint() }
            state.minting = minting
            return .wait(minting)
        }
        switch step {
        case .held(let token):
            return token
        case .failed(let error):
            throw error
        case .wait(let minting):
            do {
                let token = try await minting.value
                state.withLock { state in
                    if state.minting == minting {
                        state.minting = nil
                        state.token = token
                        state.minted += 1
                        state.failure = nil
                    }
                }
                return token
            } catch {
                state.withLock { state in
                    guard state.minting == minting else { return }
                    state.minting = nil
                    if let error = error as? GitHubAppError {
                        state.failure = (error, now().addingTimeInterval(Double(Self.failureMemory.components.seconds)))
                    }
                }
                throw error
            }
        }
    }

    /// Forgets `value` if it is the token held (GitHub answered 401 to it), so
    /// the next request mints another; a newer token is kept.
    func refused(_ value: String) {
        state.withLock { state in
            if state.token?.value == value { state.token = nil }
        }
    }
}
