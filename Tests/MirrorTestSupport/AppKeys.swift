import Foundation
import _CryptoExtras

/// GitHub App keys and JWTs for tests: keys generated here (never committed),
/// written as GitHub hands them out (PKCS#1) or converted (PKCS#8), and JWTs
/// with any claims, so the simulator's checks can be shown to refuse bad ones.
public enum AppKeys {
    public enum Format: String, CaseIterable, Sendable {
        /// `BEGIN RSA PRIVATE KEY`, as GitHub's App settings download it.
        case pkcs1
        /// `BEGIN PRIVATE KEY`, after `openssl pkcs8 -topk8`.
        case pkcs8
    }

    /// A new 2048-bit key.
    public static func generate() throws -> _RSA.Signing.PrivateKey {
        try _RSA.Signing.PrivateKey(keySize: .bits2048)
    }

    /// A key made by `openssl` (genrsa for PKCS#1, genpkey for PKCS#8) into `path`, mode 600:
    /// files made by another tool than the one that reads them.
    public static func writeWithOpenSSL(_ format: Format, to path: String) throws {
        let arguments =
            format == .pkcs1
            ? ["genrsa", "-traditional", "-out", path, "2048"]
            : ["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", path]
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        process.arguments = arguments
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw OpenSSLFailed(arguments: arguments) }
        chmod(path, 0o600)
    }

    public struct OpenSSLFailed: Error { public var arguments: [String] }

    /// The public half of a private key file's PEM: what GitHub keeps of an App's key.
    public static func publicKeyPEM(ofPrivateKeyPEM pem: String) throws -> String {
        try _RSA.Signing.PrivateKey(pemRepresentation: pem).publicKey.pemRepresentation
    }

    /// `key` as PEM in `format`.
    public static func pem(_ key: _RSA.Signing.PrivateKey, _ format: Format) -> String {
        format == .pkcs1 ? key.pemRepresentation : key.pkcs8PEMRepresentation
    }

    /// A JWT with exactly these claims (`iss` as given: a number or quoted text), signed RS256 with `key`.
    public static func jwt(key: _RSA.Signing.PrivateKey, iat: Int64, exp: Int64, iss: String) throws -> String {
        let header = base64URL(Data(#"{"alg":"RS256","typ":"JWT"}"#.utf8))
        let claims = base64URL(Data(#"{"iat":\#(iat),"exp":\#(exp),"iss":\#(iss)}"#.utf8))
        let signature = try key.signature(for: Data("\(header).\(claims)".utf8), padding: .insecurePKCS1v1_5)
        return "\(header).\(claims).\(base64URL(signature.rawRepresentation))"
    }

    /// A valid JWT for `appID` now, as GitHub documents it.
    public static func jwt(key: _RSA.Signing.PrivateKey, appID: Int) throws -> String {
        let now = Int64(Date().timeIntervalSince1970)
        return try jwt(key: key, iat: now - 60, exp: now + 540, iss: String(appID))
    }

    public static func base64URL(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// Every JWT's first part (`{"alg":"RS256","typ":"JWT"}`): finding it anywhere finds a JWT.
    public static let jwtHeaderPart = base64URL(Data(#"{"alg":"RS256","typ":"JWT"}"#.utf8))
    /// The prefix of every installation token GitHub (and github-sim) issues.
    public static let installationTokenPrefix = "ghs_"

    /// Names of `texts` holding an installation token, a JWT, or a line of `keyPEM`'s body.
    public static func leaks(in texts: [String: String], keyPEM: String) -> [String] {
        let keyLines = keyPEM.split(separator: "\n").filter { !$0.hasPrefix("-----") }.map(String.init)
        return texts.filter { _, text in
            text.contains(installationTokenPrefix) || text.contains(jwtHeaderPart) || text.contains("PRIVATE KEY")
                || keyLines.contains { text.contains($0) }
        }.map(\.key).sorted()
    }
}
