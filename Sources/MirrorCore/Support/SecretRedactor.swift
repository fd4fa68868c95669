import Foundation
import Synchronization

/// Every credential this process sends, and the one place server text is
/// cleaned of them before it reaches an error line, a log or the store.
///
/// A server may echo what it was sent in any encoding, so a registered secret
/// is found as itself (any case), percent-encoded, inside any base64 or
/// base64url text at any alignment, padded or not (the Basic `Authorization`
/// git hosts receive is base64 of `x-access-token:<token>`), and cut short
/// where a message was truncated (`…`, or the end of the text). Each match
/// becomes `[REDACTED]`.
///
/// Secrets can be registered at any time (the API token at start; GitHub App
/// installation tokens and JWTs when they are minted). A secret under 8
/// characters is never one a server issues (tests use "t") and is ignored: it
/// would match ordinary text and mangle every URL.
public final class SecretRedactor: Sendable {
    public static let replacement = "[REDACTED]"
    static let minimumSecretLength = 8
    /// The shortest cut-off start of a form (before `…` or at the end) still taken
    /// for a secret: shorter ones are ordinary text too ("github" starts every
    /// fine-grained token), and a token's first characters are its public prefix.
    static let minimumCutLength = 8

    private struct Secret {
        var bytes: [UInt8]
        /// The texts it is sent or may be echoed as, longest first.
        var forms: [String]
        /// For secrets that replace each other (`register(_:rotating:keep:)`).
        var family: String? = nil
    }

    private let secrets = Mutex<[Secret]>([])

    public init(secrets: [String] = []) {
        for secret in secrets { register(secret) }
    }

    /// Adds `secret` (and every encoding of it) to what `redact` removes.
    public func register(_ secret: String) {
        guard secret.count >= Self.minimumSecretLength else { return }
        let bytes = Array(secret.utf8)
        secrets.withLock { secrets in
            guard !secrets.contains(where: { $0.bytes == bytes }) else { return }
            secrets.append(Secret(bytes: bytes, forms: Self.forms(of: secret)))
        }
    }

    /// Adds `secret` like `register(_:)`, as the newest of a family that
    /// replaces itself (an App's installation tokens, its JWTs): only the
    /// newest `keep` of the family stay registered, so a long-running process
    /// does not scan text for every token it ever minted. Those older are
    /// expired or about to be (a JWT lives 10 minutes, a token an hour), and
    /// minted at most every few minutes, so `keep` covers any still in flight.
    public func register(_ secret: String, rotating family: String, keep: Int = 4) {
        guard secret.count >= Self.minimumSecretLength else { return }
        let bytes = Array(secret.utf8)
        secrets.withLock { secrets in
            guard !secrets.contains(where: { $0.bytes == bytes }) else { return }
            secrets.append(Secret(bytes: bytes, forms: Self.forms(of: secret), family: family))
            let members = secrets.indices.filter { secrets[$0].family == family }
            if members.count > keep {
                let dropped = Set(members.prefix(members.count - keep))
                secrets = secrets.enumerated().filter { !dropped.contains($0.offset) }.map(\.element)
            }
        }
    }

    /// `text` with every registered secret, in every encoding, replaced by `[REDACTED]`.
    public func redact(_ text: String) -> String {
        let secrets = secrets.withLock { $0 }
        guard !secrets.isEmpty, !text.isEmpty else { return text }
        var result = text
        let forms = secrets.flatMap(\.forms).sorted { $0.count > $1.count }
        for form in forms {
            result = result.replacingOccurrences(of: form, with: Self.replacement, options: .caseInsensitive)
        }
        // A secret's own forms count too: `Basic <base64>` base64-encoded again.
        result = Self.redactingBase64(result, containing: secrets.map(\.bytes) + forms.map { Array($0.utf8) })
        return Self.redactingCutForms(result, forms: forms)
    }

    /// The secret as sent or echoed verbatim: raw, percent-encoded, and base64
    /// (standard and url alphabets, padded or not) of itself and of each Basic
    /// `user:secret` this client sends.
    private static func forms(of secret: String) -> [String] {
        var forms = [secret]
        for allowed in [CharacterSet.alphanumerics, .urlQueryAllowed, .urlPathAllowed] {
            if let encoded = secret.addingPercentEncoding(withAllowedCharacters: allowed) { forms.append(encoded) }
        }
        for payload in [secret] + GitCredentials.basicUsers.map({ "\($0):\(secret)" }) {
            let padded = Data(payload.utf8).base64EncodedString()
            let unpadded = String(padded.prefix { $0 != "=" })
            let url = unpadded.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            forms += [padded, unpadded, url]
        }
        return Array(Set(forms)).sorted { $0.count > $1.count }
    }

    // MARK: - Base64 at any alignment

    /// Replaces each run of base64 or base64url characters whose decoding, from
    /// any of its first four characters, holds a secret or one of its forms: an
    /// echo that encoded the secret with other bytes around it (`Authorization:
    /// Bearer …` encoded whole) has no fixed form.
    private static func redactingBase64(_ text: String, containing secrets: [[UInt8]]) -> String {
        let shortest = secrets.map(\.count).min() ?? 0
        let minimumRun = (shortest * 4 + 2) / 3
        var output = ""
        var run = ""
        func flush() {
            if run.utf8.count >= minimumRun, holdsSecret(run, secrets) {
                output += replacement
            } else {
                output += run
            }
            run = ""
        }
        for character in text {
            if isBase64(character) {
                // Padding ends a run: `key=<base64>` is a key, then the value.
                if run.last == "=" { flush() }
                run.append(character)
            } else if character == "=", !run.isEmpty {
                run.append(character)
            } else {
                flush()
                output.append(character)
            }
        }
        flush()
        return output
    }

    private static func isBase64(_ character: Character) -> Bool {
        guard let ascii = character.asciiValue else { return false }
        return sextet(ascii) != nil
    }

    private static func holdsSecret(_ run: String, _ secrets: [[UInt8]]) -> Bool {
        let characters = Array(run.utf8.filter { $0 != UInt8(ascii: "=") })
        for offset in 0..<min(4, characters.count) {
            let decoded = decode(characters[offset...])
            if secrets.contains(where: { decoded.contains($0) }) { return true }
        }
        return false
    }

    /// Standard and url alphabets at once; `nil` for any other byte.
    private static func sextet(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): return byte - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): return byte - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0") + 52
        case UInt8(ascii: "+"), UInt8(ascii: "-"): return 62
        case UInt8(ascii: "/"), UInt8(ascii: "_"): return 63
        default: return nil
        }
    }

    private static func decode(_ characters: ArraySlice<UInt8>) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(characters.count * 3 / 4)
        var accumulator: UInt32 = 0
        var bits = 0
        for character in characters {
            guard let value = sextet(character) else { continue }
            accumulator = (accumulator << 6) | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                bytes.append(UInt8((accumulator >> UInt32(bits)) & 0xFF))
            }
        }
        return bytes
    }

    // MARK: - Truncated messages

    /// Replaces the start of a form left where a message was cut: before `…`
    /// or at the very end of the text.
    private static func redactingCutForms(_ text: String, forms: [String]) -> String {
        var characters = Array(text)
        let ends = characters.indices.filter { characters[$0] == "…" } + [characters.count]
        // From the last cut back, so the offsets of earlier cuts stay valid.
        for end in ends.reversed() {
            if let length = cutFormLength(before: end, in: characters, forms: forms) {
                characters.replaceSubrange((end - length)..<end, with: Array(replacement))
            }
        }
        return String(characters)
    }

    /// The length of the longest run ending at `end` that starts a form, if long enough.
    private static func cutFormLength(before end: Int, in characters: [Character], forms: [String]) -> Int? {
        var longest: Int?
        for form in forms.map({ Array($0.lowercased()) }) {
            var length = min(form.count - 1, end)
            while length >= minimumCutLength, length > (longest ?? 0) {
                if String(characters[(end - length)..<end]).lowercased() == String(form[..<length]) {
                    longest = length
                    break
                }
                length -= 1
            }
        }
        return longest
    }
}
