import Crypto
import Foundation

/// The shared secret GitHub signs webhook deliveries with, and where it came
/// from. The secret is never printed: the description names only the source,
/// so it is safe in any log or error.
public struct WebhookSecret: Sendable, CredentialSecret, CustomStringConvertible, CustomDebugStringConvertible {
    let key: SymmetricKey
    /// e.g. "file /etc/commits-mirror/webhook-secret" or "systemd credential github-webhook-secret".
    public let source: String

    public var description: String { "<webhook secret from \(source)>" }
    public var debugDescription: String { description }

    /// The systemd credential name (`LoadCredential=github-webhook-secret:…`), read before the
    /// configuration's `webhook_secret_file`.
    public static let credentialName = "github-webhook-secret"

    /// The secret as typed into GitHub's "Secret" field.
    public init(_ secret: String, source: String) {
        key = SymmetricKey(data: Array(secret.utf8))
        self.source = source
    }

    /// Reads a secret file: the secret alone; surrounding whitespace and newlines are trimmed.
    public static func fromFile(_ path: String, source: String? = nil, warn: (String) -> Void = { _ in }) throws -> WebhookSecret {
        let source = source ?? "file \(path)"
        let contents = try SecretFile.contents(
            of: path, naming: "the webhook secret \(source)", shownAs: "the webhook secret file \(path)", warn: warn,
            unreadable: { SecretError.unreadable(source: source, reason: $0) })
        let text = contents.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty else { throw SecretError.empty(source: source) }
        return WebhookSecret(text, source: source)
    }

    /// Whether `signature` (the `X-Hub-Signature-256` header, `sha256=` and 64
    /// hex digits) is the HMAC-SHA256 of `body` under this secret. The codes
    /// are compared in constant time (swift-crypto's `isValidAuthenticationCode`);
    /// a missing or malformed header is simply not valid.
    public func verifies<Body: DataProtocol>(_ body: Body, signature: String?) -> Bool {
        guard let signature, let code = Self.code(fromHeader: signature) else { return false }
        return HMAC<SHA256>.isValidAuthenticationCode(code, authenticating: body, using: key)
    }

    /// A signature check fed the body as it arrives, so no body has to be
    /// held whole to be verified.
    public func signatureCheck() -> WebhookSignatureCheck { WebhookSignatureCheck(key: key) }

    /// `sha256=` and the hex HMAC-SHA256 of `body`: what GitHub sends as `X-Hub-Signature-256`.
    public func signature<Body: DataProtocol>(of body: Body) -> String {
        let code = HMAC<SHA256>.authenticationCode(for: body, using: key)
        return "sha256=" + code.map { String($0, radix: 16).leftPadded(to: 2) }.joined()
    }

    /// The 32 bytes of `sha256=<64 hex digits>`; nil for anything else.
    static func code(fromHeader header: String) -> [UInt8]? {
        let text = header.trimmingCharacters(in: .whitespaces)
        guard text.hasPrefix("sha256=") else { return nil }
        let hex = Array(text.utf8.dropFirst(7))
        guard hex.count == 64 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(32)
        var index = 0
        while index < 64 {
            guard let high = Self.nibble(hex[index]), let low = Self.nibble(hex[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        return bytes
    }

    private static func nibble(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    public enum SecretError: Error, Sendable, CustomStringConvertible {
        case unreadable(source: String, reason: String)
        case empty(source: String)

        public var description: String {
            switch self {
            case .unreadable(let source, let reason):
                "cannot read the webhook secret from \(source): \(reason); check the path and that this user may read it"
            case .empty(let source):
                "the webhook secret from \(source) is empty; put the secret set on GitHub's webhook page in it"
            }
        }
    }
}

extension String {
    fileprivate func leftPadded(to length: Int) -> String {
        count >= length ? self : String(repeating: "0", count: length - count) + self
    }
}
