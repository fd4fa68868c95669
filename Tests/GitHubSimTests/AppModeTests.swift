import Curl
import Foundation
import MirrorTestSupport
import NIOCore
import NIOHTTP1
import Testing
import _CryptoExtras

@testable import GitHubSim

/// App mode: JWTs checked against the App's public key by GitHub's rules,
/// installation tokens minted with a lifetime and refused once expired, one
/// rate-limit bucket per installation, and the App endpoints.
@Suite struct AppModeTests {
    static let appID = 12345
    let key: _RSA.Signing.PrivateKey
    let client: CoreClient

    init() throws {
        key = try AppKeys.generate()
        client = try Self.client(key: key, lifetime: .seconds(3600))
    }

    static func client(
        key: _RSA.Signing.PrivateKey, lifetime: Duration, installationLimit: Int = 5000, clock: ManualClock? = nil
    ) throws -> CoreClient {
        var configuration = SimConfiguration()
        configuration.compressResponses = false
        var app = SimApp(
            appID: appID, publicKey: key.publicKey,
            installations: [SimInstallation(id: 678, account: "acme"), SimInstallation(id: 679, account: "umbrella")])
        app.tokenLifetime = lifetime
        if let clock { app.now = { clock.now } }
        app.installationLimit = installationLimit
        configuration.app = app
        var repositories = (1...3).map { synthetic(5, owner: "acme", name: "r\($0)", id: 100 + $0, seed: UInt64($0)) }
        repositories.append(
            SimRepository(
                owner: "umbrella", name: "secret", id: 300, source: .synthetic(SyntheticSpec(commits: 5)), isPrivate: true))
        return try CoreClient(configuration: configuration, repositories: repositories)
    }

    func request(_ method: HTTPMethod, _ uri: String, bearer: String?, headers: [(String, String)] = []) -> SimResponse {
        var fields = HTTPHeaders(headers + [("User-Agent", "app-mode-tests")])
        if let bearer { fields.add(name: "Authorization", value: "Bearer \(bearer)") }
        return client.core.handle(SimRequest(method: method, uri: uri, headers: fields))
    }

    func mint(_ installation: Int = 678) throws -> (token: String, expiresAt: String) {
        let response = request(
            .POST, "/app/installations/\(installation)/access_tokens", bearer: try AppKeys.jwt(key: key, appID: Self.appID))
        #expect(response.code == 201, "\(response.text)")
        let body = response.jsonDictionary
        return (try #require(body["token"] as? String), try #require(body["expires_at"] as? String))
    }

    @Test func aValidJWTListsTheInstallationsAndMintsTokensThatExpireWhenTheySay() throws {
        let jwt = try AppKeys.jwt(key: key, appID: Self.appID)
        let installations = request(.GET, "/app/installations", bearer: jwt)
        #expect(installations.code == 200)
        #expect(installations.jsonArray.compactMap { $0["id"] as? Int } == [678, 679])
        #expect(installations.jsonArray.first.flatMap { ($0["account"] as? [String: Any])?["login"] as? String } == "acme")
        #expect(request(.GET, "/orgs/umbrella/installation", bearer: jwt).jsonDictionary["id"] as? Int == 679)
        #expect(request(.GET, "/orgs/nobody/installation", bearer: jwt).code == 404)
        #expect(request(.POST, "/app/installations/999/access_tokens", bearer: jwt).code == 404)

        let before = Date()
        let (token, expiresAt) = try mint()
        #expect(token.hasPrefix("ghs_") && token.count == 40)
        let expiry = try #require(ISO8601DateFormatter().date(from: expiresAt))
        #expect(abs(expiry.timeIntervalSince(before) - 3600) < 3)
        #expect(client.core.stats().appTokensIssued == 1)
    }

    @Test func aMintedTokenReadsRepositoriesInItsOwnBucketAndOnlyItsAccountsPrivateOnes() throws {
        let acme = try mint(678).token
        let umbrella = try mint(679).token
        let first = request(.GET, "/repos/acme/r1", bearer: acme)
        #expect(first.code == 200)
        #expect(first.header("X-RateLimit-Used") == "1")
        #expect(request(.GET, "/repos/acme/r2", bearer: acme).header("X-RateLimit-Used") == "2")
        // Another installation spends a bucket of its own.
        #expect(request(.GET, "/repos/acme/r1", bearer: umbrella).header("X-RateLimit-Used") == "1")
        // The two mints spent the App's own bucket.
        #expect(client.core.stats().rateLimitUsed == ["app:12345": 2, "installation:678": 2, "installation:679": 1])
        #expect(request(.GET, "/repos/umbrella/secret", bearer: umbrella).code == 200)
        #expect(request(.GET, "/repos/umbrella/secret", bearer: acme).code == 404)
        // The App itself reaches no repository, and a token never mints another.
        #expect(request(.GET, "/repos/acme/r1", bearer: try AppKeys.jwt(key: key, appID: Self.appID)).code == 403)
        #expect(request(.POST, "/app/installations/678/access_tokens", bearer: acme).code == 401)
    }

    @Test func anExpiredTokenIsRefusedWith401AndCounted() throws {
        let clock = ManualClock()
        let shortLived = try Self.client(key: key, lifetime: .seconds(1), clock: clock)
        let jwt = try AppKeys.jwt(key: key, appID: Self.appID)
        var fields = HTTPHeaders([("User-Agent", "t"), ("Authorization", "Bearer \(jwt)")])
        let minted = shortLived.core.handle(SimRequest(method: .POST, uri: "/app/installations/678/access_tokens", headers: fields))
        let token = try #require(minted.jsonDictionary["token"] as? String)
        fields.replaceOrAdd(name: "Authorization", value: "Bearer \(token)")
        #expect(shortLived.core.handle(SimRequest(uri: "/repos/acme/r1", headers: fields)).code == 200)
        clock.advance(by: 2)
        let refused = shortLived.core.handle(SimRequest(uri: "/repos/acme/r1", headers: fields))
        #expect(refused.code == 401 && refused.text.contains("Bad credentials"))
        #expect(shortLived.core.stats().expiredTokenRefusals == 1)
        fields.replaceOrAdd(name: "Authorization", value: "Bearer ghs_neverIssuedNeverIssuedNeverIssued0000")
        #expect(shortLived.core.handle(SimRequest(uri: "/repos/acme/r1", headers: fields)).code == 401)
    }

    @Test(
        arguments: [
            ("expires 11 minutes after it was issued", -60, 600, "12345", "too far in the future"),
            ("expired", -700, -100, "12345", "future time"),
            ("issued in the future", 300, 500, "12345", "in the past"),
            ("another App's", -60, 540, "999", "Issuer"),
            ("the App id as text", -60, 540, "\"12345\"", nil),
        ] as [(String, Int64, Int64, String, String?)])
    func jwtClaimsFollowGitHubsRules(_ label: String, iat: Int64, exp: Int64, iss: String, refusal: String?) throws {
        let now = Int64(Date().timeIntervalSince1970)
        let jwt = try AppKeys.jwt(key: key, iat: now + iat, exp: now + exp, iss: iss)
        let response = request(.GET, "/app/installations", bearer: jwt)
        if let refusal {
            #expect(response.code == 401 && response.text.contains(refusal), "\(label): \(response.text)")
        } else {
            #expect(response.code == 200, "\(label): \(response.text)")
        }
    }

    @Test func aJWTSignedWithAnotherKeyOrTamperedWithIsRefused() throws {
        let stranger = try AppKeys.jwt(key: try AppKeys.generate(), appID: Self.appID)
        #expect(request(.GET, "/app/installations", bearer: stranger).code == 401)
        let valid = try AppKeys.jwt(key: key, appID: Self.appID)
        var parts = valid.split(separator: ".").map(String.init)
        let now = Int64(Date().timeIntervalSince1970)
        parts[1] = AppKeys.base64URL(Data(#"{"iat":\#(now - 60),"exp":\#(now + 540),"iss":"1"}"#.utf8))
        #expect(request(.GET, "/app/installations", bearer: parts.joined(separator: ".")).code == 401)
        #expect(client.core.stats().jwtRefusals == 2)
    }

    @Test func theInstallationsRepositoriesArePaginatedAndConditional() throws {
        let token = try mint().token
        let first = request(.GET, "/installation/repositories?per_page=2", bearer: token)
        #expect(first.code == 200)
        #expect(first.jsonDictionary["total_count"] as? Int == 3)
        let names = (first.jsonDictionary["repositories"] as? [[String: Any]] ?? []).compactMap { $0["full_name"] as? String }
        #expect(names == ["acme/r3", "acme/r2"])
        let link = try #require(first.header("Link"))
        #expect(link.contains("/installation/repositories?per_page=2&page=2>; rel=\"next\""))
        let etag = try #require(first.header("ETag"))
        let again = request(.GET, "/installation/repositories?per_page=2", bearer: token, headers: [("If-None-Match", etag)])
        #expect(again.code == 304)
        // A 304 to an installation is free, as to any authenticated client.
        #expect(again.header("X-RateLimit-Used") == "1")
        #expect(request(.GET, "/installation/repositories", bearer: "a-personal-token").code == 403)
    }

    @Test func gitTakesAnUnexpiredInstallationTokenAsItsBasicPassword() throws {
        let clock = ManualClock()
        let shortLived = try Self.client(key: key, lifetime: .seconds(1), clock: clock)
        let jwt = try AppKeys.jwt(key: key, appID: Self.appID)
        let minted = shortLived.core.handle(
            SimRequest(
                method: .POST, uri: "/app/installations/679/access_tokens",
                headers: HTTPHeaders([("User-Agent", "t"), ("Authorization", "Bearer \(jwt)")])))
        let token = try #require(minted.jsonDictionary["token"] as? String)
        func advertisement(_ password: String) -> Int {
            let basic = "Basic " + Data("x-access-token:\(password)".utf8).base64EncodedString()
            return shortLived.core.handle(
                SimRequest(
                    uri: "/umbrella/secret.git/info/refs?service=git-upload-pack",
                    headers: HTTPHeaders([("Authorization", basic), ("Git-Protocol", "version=2")]))
            ).code
        }
        #expect(advertisement(token) == 200)
        clock.advance(by: 2)
        #expect(advertisement(token) == 401)
    }

    @Test func overLoopbackWithLibcurlAKeyFileOfEitherFormatWorks() async throws {
        let directory = try TemporaryDirectory()
        for format in AppKeys.Format.allCases {
            let path = directory.path("app-\(format.rawValue).pem")
            try AppKeys.writeWithOpenSSL(format, to: path)
            let pem = try String(contentsOfFile: path, encoding: .utf8)
            #expect(pem.contains(format == .pkcs1 ? "BEGIN RSA PRIVATE KEY" : "BEGIN PRIVATE KEY"))
            var configuration = SimConfiguration()
            configuration.app = try SimApp(appID: Self.appID, keyPEM: pem, installations: [SimInstallation(id: 678, account: "acme")])
            let simulator = try GitHubSimulator(configuration: configuration, repositories: [synthetic(5)])
            try await simulator.start()
            let privateKey = try _RSA.Signing.PrivateKey(pemRepresentation: pem)
            let response = try await HTTPClient().send(
                HTTPRequest(
                    url: simulator.baseURL + "/app/installations/678/access_tokens", method: "POST",
                    headers: [("User-Agent", "t"), ("Authorization", "Bearer \(try AppKeys.jwt(key: privateKey, appID: Self.appID))")],
                    body: []))
            #expect(response.status == 201, "\(format)")
            try await simulator.shutdown()
        }
    }
}
