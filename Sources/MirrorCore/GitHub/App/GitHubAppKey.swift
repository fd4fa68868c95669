import Foundation
import _CryptoExtras

/// A GitHub App's private key and where it came from. Neither the key nor
/// anything derived from it is ever printed: the description names only the
/// source, so it is safe in any log or error.
public struct GitHubAppKey: Sendable, CredentialSecret, CustomStringConvertible, CustomDebugStringConvertible {
    let key: _RSA.Signing.PrivateKey
    /// e.g. "file /etc/commits-mirror/app.pem" or "systemd credential github-app-key".
    public let source: String

    public var description: String { "<GitHub App key from \(source)>" }
    public var debugDescription: String { description }

    /// The systemd credential name (`LoadCredential=github-app-key:…`), read before the
    /// configuration's `private_key_file`.
    public static let credentialName = "github-app-key"

    init(key: _RSA.Signing.PrivateKey, source: String) {
        self.key = key
        self.source = source
    }

    /// Reads a PEM private key as GitHub hands it out (PKCS#1, `BEGIN RSA
    /// PRIVATE KEY`) or converted to PKCS#8 (`BEGIN PRIVATE KEY`).
    public static func fromFile(_ path: String, source: String? = nil, warn: (String) -> Void = { _ in }) throws -> GitHubAppKey {
        let source = source ?? "file \(path)"
        let pem = try SecretFile.contents(
            of: path, naming: "the GitHub App private key \(source)", shownAs: "the GitHub App key file \(path)", warn: warn,
            unreadable: { KeyError.unreadable(source: source, reason: $0) })
        return try GitHubAppKey(pem: pem, source: source)
    }

    /// Parses `pem`; the error names the source and never quotes the text.
    public init(pem: String, source: String) throws {
        let text = pem.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty else { throw KeyError.notAKey(source: source) }
        do {
            key = try _RSA.Signing.PrivateKey(pemRepresentation: text)
        } catch {
            // The library's error may describe the key's structure: only the source is named.
            throw KeyError.notAKey(source: source)
        }
        self.source = source
    }

    public enum KeyError: Error, Sendable, CustomStringConvertible {
        case unreadable(source: String, reason: String)
        /// Empty, not PEM, not RSA, or shorter than 2048 bits.
        case notAKey(source: String)

        public var description: String {
            switch self {
            case .unreadable(let source, let reason):
                return "cannot read the GitHub App private key from \(source): \(reason); check the path and that this user may read it"
            case .notAKey(let source):
                return
                    "the GitHub App private key from \(source) is not a PEM RSA private key of 2048 bits or more (BEGIN RSA PRIVATE KEY or BEGIN PRIVATE KEY); download a new one from the App's settings page"
            }
        }
    }
}
