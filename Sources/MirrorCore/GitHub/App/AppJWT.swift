import Foundation
import _CryptoExtras

/// The JSON Web Token a GitHub App authenticates as itself with (to mint
/// installation tokens), as GitHub documents it: RS256 over the App's private
/// key, `iat` 60 s in the past (GitHub's allowance for clock drift), `exp` at
/// most 10 minutes after `iat`, `iss` the App's id.
enum AppJWT {
    /// How far `iat` is set in the past.
    static let backdate: Int64 = 60
    /// `exp` − `iat`: GitHub refuses a token that lives longer than 10 minutes.
    static let lifetime: Int64 = 600

    /// A signed token for `appID`, issued at `now` (less the backdate).
    static func make(appID: Int, key: GitHubAppKey, now: Date = Date()) throws -> String {
        let issuedAt = Int64(now.timeIntervalSince1970) - backdate
        let header = #"{"alg":"RS256","typ":"JWT"}"#
        let claims = #"{"iat":\#(issuedAt),"exp":\#(issuedAt + lifetime),"iss":"\#(appID)"}"#
        let signingInput = base64URL(Data(header.utf8)) + "." + base64URL(Data(claims.utf8))
        // RS256 is RSASSA-PKCS1-v1_5 over SHA-256 (RFC 7518 §3.3); the library hashes the input.
        let signature = try key.key.signature(for: Data(signingInput.utf8), padding: .insecurePKCS1v1_5)
        return signingInput + "." + base64URL(signature.rawRepresentation)
    }

    /// Base64url without padding (RFC 7515 §2).
    static func base64URL(_ data: Data) -> String {
        data.base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
