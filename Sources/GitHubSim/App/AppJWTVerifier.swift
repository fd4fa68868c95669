// Checks a GitHub App JWT as GitHub does: RS256 over the App's key, `iat` not in the future
// (beyond a minute of drift), `exp` in the future and at most 10 minutes after `iat`, `iss` the
// App's id (a number or its text). The messages are GitHub's.

import Foundation
import _CryptoExtras

enum AppJWTVerifier {
    /// How far `iat` may be ahead of the simulator's clock.
    static let allowedDrift: Int64 = 60
    /// The longest `exp` − `iat` GitHub accepts.
    static let longestLifetime: Int64 = 600

    /// Whether `token` has a JWT's shape (three base64url parts), as GitHub tells JWTs from tokens.
    static func looksLikeJWT(_ token: String) -> Bool {
        token.split(separator: ".", omittingEmptySubsequences: false).count == 3
    }

    /// nil when `token` is a valid JWT of `app` at `now`, else GitHub's 401 message.
    static func problem(with token: String, app: SimApp, now: Int64) -> String? {
        let undecodable = "A JSON web token could not be decoded"
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let headerData = decode(parts[0]), let claimsData = decode(parts[1]),
            let signature = decode(parts[2]),
            let header = try? JSONDecoder().decode(Header.self, from: headerData),
            let claims = try? JSONDecoder().decode(Claims.self, from: claimsData)
        else { return undecodable }
        guard header.alg == "RS256" else { return undecodable }
        let signingInput = Data("\(parts[0]).\(parts[1])".utf8)
        guard
            app.publicKey.isValidSignature(
                _RSA.Signing.RSASignature(rawRepresentation: signature), for: signingInput, padding: .insecurePKCS1v1_5)
        else { return undecodable }
        guard let issuedAt = claims.iat else {
            return "'Issued at' claim ('iat') must be an Integer representing the time that the assertion was issued."
        }
        guard let expiresAt = claims.exp else {
            return "'Expiration time' claim ('exp') must be a numeric value representing the future time at which the assertion expires."
        }
        if issuedAt > now + allowedDrift { return "'Issued at' claim ('iat') must be an Integer representing a time in the past." }
        if expiresAt <= now {
            return "'Expiration time' claim ('exp') must be a numeric value representing the future time at which the assertion expires."
        }
        if expiresAt - issuedAt > longestLifetime { return "'Expiration time' claim ('exp') is too far in the future." }
        guard claims.iss == String(app.appID) else { return "'Issuer' claim ('iss') must be an Integer" }
        return nil
    }

    private struct Header: Decodable {
        var alg: String
    }

    /// Each claim read on its own, so a claim of the wrong type is named, not the whole token.
    private struct Claims: Decodable {
        var iat: Int64?
        var exp: Int64?
        /// The App id, written as a number or as text.
        var iss: String?

        enum CodingKeys: String, CodingKey { case iat, exp, iss }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            iat = try? container.decode(Int64.self, forKey: .iat)
            exp = try? container.decode(Int64.self, forKey: .exp)
            iss = (try? container.decode(Int64.self, forKey: .iss)).map(String.init) ?? (try? container.decode(String.self, forKey: .iss))
        }
    }

    /// Base64url without padding (RFC 7515 §2); nil for anything else.
    private static func decode(_ part: Substring) -> Data? {
        guard !part.contains("="), !part.contains("+"), !part.contains("/") else { return nil }
        var text = part.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while text.count % 4 != 0 { text += "=" }
        return Data(base64Encoded: text)
    }
}
