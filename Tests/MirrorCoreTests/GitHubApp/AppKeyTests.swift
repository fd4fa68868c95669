import Foundation
import MirrorTestSupport
import Testing
import _CryptoExtras

@testable import MirrorCore

/// The App's private key as GitHub hands it out (PKCS#1) and converted (PKCS#8),
/// files written by openssl; every bad key is one line naming where it came
/// from, never its text. The JWT made with it verifies against the public key.
@Suite struct AppKeyTests {
    @Test(arguments: AppKeys.Format.allCases)
    func aKeyFileOfEitherFormatSignsJWTsItsPublicKeyVerifies(_ format: AppKeys.Format) throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("app.pem")
        try AppKeys.writeWithOpenSSL(format, to: path)
        let key = try GitHubAppKey.fromFile(path)
        #expect(key.source == "file \(path)")
        #expect("\(key)" == "<GitHub App key from file \(path)>")

        let before = Int64(Date().timeIntervalSince1970)
        let jwt = try AppJWT.make(appID: 12345, key: key)
        let parts = jwt.split(separator: ".").map(String.init)
        #expect(parts.count == 3)
        func decoded(_ part: String) throws -> Data {
            var text = part.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
            while text.count % 4 != 0 { text += "=" }
            return try #require(Data(base64Encoded: text))
        }
        let header = try JSONSerialization.jsonObject(with: try decoded(parts[0])) as? [String: Any]
        #expect(header?["alg"] as? String == "RS256")
        let claims = try #require(try JSONSerialization.jsonObject(with: try decoded(parts[1])) as? [String: Any])
        let iat = try #require(claims["iat"] as? Int)
        let exp = try #require(claims["exp"] as? Int)
        #expect(abs(Int64(iat) - (before - 60)) <= 2)
        #expect(exp - iat == 600)
        #expect(claims["iss"] as? String == "12345")
        // Verified with the public half of the same file, independently of the signing code.
        let publicKey = try _RSA.Signing.PrivateKey(pemRepresentation: String(contentsOfFile: path, encoding: .utf8)).publicKey
        let signature = _RSA.Signing.RSASignature(rawRepresentation: try decoded(parts[2]))
        #expect(publicKey.isValidSignature(signature, for: Data("\(parts[0]).\(parts[1])".utf8), padding: .insecurePKCS1v1_5))
        #expect(!publicKey.isValidSignature(signature, for: Data("\(parts[0]).x".utf8), padding: .insecurePKCS1v1_5))
    }

    @Test func swiftCryptosOwnPEMIsTheFormatGitHubHandsOut() throws {
        #expect(AppKeys.pem(try AppKeys.generate(), .pkcs1).hasPrefix("-----BEGIN RSA PRIVATE KEY-----"))
        #expect(AppKeys.pem(try AppKeys.generate(), .pkcs8).hasPrefix("-----BEGIN PRIVATE KEY-----"))
    }

    @Test func everyBadKeyIsOneLineNamingItsSourceAndNeverItsText() throws {
        let directory = try TemporaryDirectory()
        let key = try AppKeys.generate()
        let weak = directory.path("weak.pem")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        process.arguments = ["genrsa", "-traditional", "-out", weak, "1024"]
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        let publicOnly = try directory.write("public.pem", key.publicKey.pemRepresentation)
        let cases = [
            try directory.write("empty.pem", ""),
            try directory.write("garbage.pem", "-----BEGIN RSA PRIVATE KEY-----\nbm90IGEga2V5\n-----END RSA PRIVATE KEY-----\n"),
            publicOnly, weak,
        ]
        for path in cases {
            let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
            do {
                _ = try GitHubAppKey.fromFile(path)
                Issue.record("\(path) was taken for a key")
            } catch let error as GitHubAppKey.KeyError {
                let message = "\(error)"
                #expect(!message.contains("\n") && message.contains("file \(path)") && message.contains("PEM RSA private key"))
                for line in text.split(separator: "\n") where !line.hasPrefix("-----") {
                    #expect(!message.contains(line))
                }
            }
        }
        #expect(throws: GitHubAppKey.KeyError.self) { try GitHubAppKey.fromFile(directory.path("missing.pem")) }
        let missing = "\((try? GitHubAppKey.fromFile(directory.path("missing.pem"))).map { "\($0)" } ?? "")"
        #expect(missing.isEmpty)
    }

    @Test func theSystemdCredentialComesBeforeTheConfiguredFile() throws {
        let directory = try TemporaryDirectory()
        let credentials = directory.path("credentials")
        try FileManager.default.createDirectory(atPath: credentials, withIntermediateDirectories: true)
        try AppKeys.writeWithOpenSSL(.pkcs1, to: credentials + "/github-app-key")
        let configured = directory.path("app.pem")
        try AppKeys.writeWithOpenSSL(.pkcs8, to: configured)
        let fromCredential = try GitHubAppKey.resolve(configuredFile: configured, environment: ["CREDENTIALS_DIRECTORY": credentials])
        #expect(fromCredential?.source == "systemd credential github-app-key")
        #expect(try GitHubAppKey.resolve(configuredFile: configured, environment: [:])?.source == "file \(configured)")
        #expect(try GitHubAppKey.resolve(configuredFile: nil, environment: [:]) == nil)
    }
}
