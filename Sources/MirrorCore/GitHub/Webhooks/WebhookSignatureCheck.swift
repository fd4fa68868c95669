import Crypto
import Foundation

/// The HMAC-SHA256 of a delivery's body computed chunk by chunk as the body
/// arrives, then compared with `X-Hub-Signature-256`. The receiver keeps only
/// this running state for the bytes it does not need afterwards, so a body is
/// verified without being buffered (`WebhookSecret.verifies` is the one-shot form).
public struct WebhookSignatureCheck: Sendable {
    private var hmac: HMAC<SHA256>

    init(key: SymmetricKey) { hmac = HMAC<SHA256>(key: key) }

    /// The next bytes of the body, in order.
    public mutating func update<Bytes: DataProtocol>(_ bytes: Bytes) { hmac.update(data: bytes) }

    /// Whether `signature` (`sha256=` and 64 hex digits) is the HMAC of all the
    /// bytes given. swift-crypto compares the codes in constant time; a missing
    /// or malformed header is simply not valid.
    public func verifies(signature: String?) -> Bool {
        guard let signature, let code = WebhookSecret.code(fromHeader: signature) else { return false }
        return hmac.finalize() == code
    }
}
