import Curl
import Foundation
import GitHubSim
import MirrorTestSupport
import Testing
import _CryptoExtras

@testable import MirrorCore

/// GitHub App authentication over the real path: github-sim in App mode on
/// loopback, real libcurl, real SQLite. Tokens are minted with the App's JWT,
/// sent on every request, minted again before they expire and once after a
/// 401, and the installation's own rate limit is the one the client keeps.
@Suite struct AppAuthenticationTests {
    static let appID = 4242
    static let installationLimit = 7000

    let key: _RSA.Signing.PrivateKey

    init() throws { key = try AppKeys.generate() }

    func simulator(
        lifetime: Duration = .seconds(3600), repositories: [SimRepository] = [synthetic("widgets", id: 501, commits: 250)],
        cloneHost: String? = nil, clock: ManualClock? = nil
    ) async throws -> SimulatorHarness {
        var configuration = SimConfiguration()
        var app = SimApp(
            appID: Self.appID, publicKey: key.publicKey,
            installations: [SimInstallation(id: 677, account: "umbrella"), SimInstallation(id: 678, account: "acme")])
        app.tokenLifetime = lifetime
        if let clock { app.now = { clock.now } }
        app.installationLimit = Self.installationLimit
        configuration.app = app
        configuration.cloneHost = cloneHost
        // No personal token is accepted: every request must carry the installation's.
        configuration.validTokens = []
        return try await SimulatorHarness.start(repositories, configuration: configuration)
    }

    static func synthetic(_ name: String, id: Int, commits: Int, isPrivate: Bool = false) -> SimRepository {
        SimRepository(
            owner: "acme", name: name, id: id, source: .synthetic(SyntheticSpec(commits: commits, shape: .realistic, seed: 3)),
            isPrivate: isPrivate)
    }

    func client(
        _ harness: SimulatorHarness, installation: GitHubApp.Installation = .id(678), key: _RSA.Signing.PrivateKey? = nil,
        clock: ManualClock? = nil
    ) throws -> GitHubClient {
        let appKey = try GitHubAppKey(pem: AppKeys.pem(key ?? self.key, .pkcs1), source: "file /test/app.pem")
        let now: @Sendable () -> Date = { clock?.now ?? Date() }
        let app = GitHubApp(appID: Self.appID, installation: installation, key: appKey, now: now)
        var configuration = GitHubClient.Configuration(apiURL: harness.simulator.baseURL, app: app)
        configuration.retry = SimulatorHarness.fastRetries()
        return try GitHubClient(configuration: configuration, logger: TestSupport.quietLogger)
    }

    @Test func aSyncAuthenticatesEveryRequestWithOneInstallationTokenAndKeepsTheInstallationsLimit() async throws {
        try await withRunning(simulator()) { harness in
            let client = try client(harness)
            let report = try await harness.sync("acme/widgets", client: client)
            #expect(report.added == 250)
            let stats = harness.simulator.stats()
            #expect(stats.appTokensIssued == 1)
            #expect(stats.requests == stats.authorizationHeadersSeen && stats.errors == 0, "\(stats)")
            // All but the mint, which spent the App's own bucket.
            #expect(stats.rateLimitUsed["installation:678"] == report.requests - 1)
            // The mint's own (App) rate limit is not the one the client keeps.
            #expect(client.usage.rateLimit?.limit == Self.installationLimit)
            #expect(client.configuration.credentialSource == "GitHub App 4242 (key from file /test/app.pem)")
            #expect(client.usage.byKind[.appToken]?.requests == 1)
        }
    }

    @Test func withoutAnInstallationIdTheOwnersOnlyInstallationIsUsed() async throws {
        try await withRunning(simulator()) { harness in
            let client = try client(harness, installation: .onlyOne(owner: "ACME"))
            try await harness.sync("acme/widgets", client: client)
            #expect(harness.simulator.stats().rateLimitUsed.keys.contains("installation:678"))
            #expect(client.configuration.app?.knownInstallationID == 678)

            let elsewhere = try self.client(harness, installation: .onlyOne(owner: "nobody"))
            let error = await #expect(throws: GitHubAppError.self) { try await harness.sync("acme/widgets", client: elsewhere) }
            #expect(
                "\(error!)"
                    == "GitHub App 4242 is not installed on nobody (it is installed on umbrella, acme): install it on nobody, or name the installation id"
            )
        }
    }

    @Test func aJWTFromAnotherKeyIsRefusedWithoutShowingIt() async throws {
        try await withRunning(simulator()) { harness in
            let client = try client(harness, key: try AppKeys.generate())
            let error = await #expect(throws: GitHubAppError.self) { try await harness.sync("acme/widgets", client: client) }
            let message = "\(error!)"
            #expect(message.hasPrefix("GitHub refused the JWT of GitHub App 4242 (401: A JSON web token could not be decoded)"))
            #expect(!message.contains(AppKeys.jwtHeaderPart))
            #expect(harness.simulator.stats().jwtRefusals == 1)
        }
    }

    @Test func aTokenIsMintedAgainBeforeItExpiresSoNoRequestMeetsA401() async throws {
        // One clock for the client and the simulator, on a whole second: the token's 8 s are exact.
        let clock = ManualClock(startingAt: Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down)))
        try await withRunning(simulator(lifetime: .seconds(8), clock: clock)) { harness in
            let client = try client(harness, clock: clock)
            try await harness.sync("acme/widgets", client: client)
            #expect(harness.simulator.stats().appTokensIssued == 1)
            // Past the renewal point (a quarter of the 8 s before expiry), still before the expiry itself.
            clock.advance(by: 6.5)
            try await harness.sync("acme/widgets", client: client)
            let stats = harness.simulator.stats()
            #expect(stats.appTokensIssued == 2 && stats.expiredTokenRefusals == 0 && stats.errors == 0, "\(stats)")
        }
    }

    @Test func aRevokedTokenMeetsOne401ThenANewTokenAndTheRequestIsRetried() async throws {
        try await withRunning(simulator()) { harness in
            let client = try client(harness)
            try await harness.sync("acme/widgets", client: client)
            let token = try #require(try await client.currentInstallationToken()).value
            let revoked = try await HTTPClient().send(
                HTTPRequest(
                    url: harness.simulator.baseURL + "/installation/token", method: "DELETE",
                    headers: [("User-Agent", "t"), ("Authorization", "Bearer \(token)")]))
            #expect(revoked.status == 204)
            try await harness.simulator.moveHead(owner: "acme", name: "widgets", back: 3)
            let retriesBefore = client.usage.retries
            _ = try await client.branchHead(RepositoryName(parsing: "acme/widgets")!, branch: "main", knownHead: nil)
            #expect(client.usage.retries == retriesBefore + 1)
            #expect(harness.simulator.stats().appTokensIssued == 2)
            #expect(try await client.currentInstallationToken()?.value != token)
        }
    }

    @Test func aMintIsNotHeldBackByTheInstallationsReserve() async throws {
        try await withRunning(simulator()) { harness in
            let appKey = try GitHubAppKey(pem: AppKeys.pem(key, .pkcs1), source: "test")
            var configuration = GitHubClient.Configuration(
                apiURL: harness.simulator.baseURL, app: GitHubApp(appID: Self.appID, installation: .id(678), key: appKey))
            configuration.retry = SimulatorHarness.fastRetries()
            // Every poll after the first finds the installation's budget at the reserve.
            configuration.rateLimitReserve = Self.installationLimit
            let client = try GitHubClient(configuration: configuration, logger: TestSupport.quietLogger)
            let name = RepositoryName(parsing: "acme/widgets")!
            guard case .moved(let head) = try await client.branchHead(name, branch: "main", knownHead: nil) else {
                Issue.record("the first poll found no head")
                return
            }
            let token = try #require(try await client.currentInstallationToken()).value
            _ = try await HTTPClient().send(
                HTTPRequest(
                    url: harness.simulator.baseURL + "/installation/token", method: "DELETE",
                    headers: [("User-Agent", "t"), ("Authorization", "Bearer \(token)")]))
            // A conditional poll goes on at the reserve; its 401 needs a new token, whose mint must go on too.
            #expect(try await client.branchHead(name, branch: "main", knownHead: head) == .unchanged)
            #expect(harness.simulator.stats().appTokensIssued == 2)
        }
    }

    @Test func theTokenAndEveryJWTAreRedactedFromServerText() async throws {
        try await withRunning(simulator()) { harness in
            let client = try client(harness)
            let token = try #require(try await client.currentInstallationToken()).value
            let jwt = try client.appJWT(try #require(client.configuration.app))
            let basic = Data("x-access-token:\(token)".utf8).base64EncodedString()
            let echoed = client.redact("token \(token), jwt \(jwt), basic \(basic), cut \(token.prefix(20))…")
            #expect(!echoed.contains(token) && !echoed.contains(jwt) && !echoed.contains(basic) && !echoed.contains(token.prefix(20)))
            #expect(echoed.contains("[REDACTED]"))
        }
    }

    @Test func anOwnerPatternListsWhatTheInstallationSeesAndCostsOneFree304ThenAfter() async throws {
        let repositories = (1...3).map { Self.synthetic("r\($0)", id: 600 + $0, commits: 5, isPrivate: $0 == 2) }
        try await withRunning(simulator(repositories: repositories)) { harness in
            let client = try client(harness)
            let discovery = RepositoryDiscovery(store: .sqliteFile(harness.storePath), client: client, logger: TestSupport.quietLogger)
            let selections = [RepositoryDiscovery.Selection(pattern: RepositoryPattern(parsing: "acme/*")!)]
            let first = try await discovery.discover(owner: "acme", selections: selections)
            #expect(Set(first.selected.map(\.name.description)) == ["acme/r1", "acme/r2", "acme/r3"])
            let second = try await discovery.discover(owner: "acme", selections: selections)
            #expect(second.unchanged && second.notModified == 1 && second.requests == 1)
            // An installation sees one account: a pattern on another owner says so.
            let error = await #expect(throws: DiscoveryError.self) {
                try await discovery.discover(owner: "umbrella", selections: [.init(pattern: RepositoryPattern(parsing: "umbrella/*")!)])
            }
            #expect("\(error!)".contains("installed on acme, not on umbrella"))
        }
    }

    @Test func gitCredentialsAreMintedOnlyForTheAPIsOwnHost() async throws {
        try await withRunning(simulator()) { harness in
            let client = try client(harness)
            let base = harness.simulator.baseURL
            let otherHost = base.replacingOccurrences(of: "127.0.0.1", with: "localhost") + "/acme/widgets.git"
            #expect(try await client.gitCredentials(forClone: otherHost) == nil)
            #expect(client.configuration.app?.tokensMinted == 0, "no token is minted for a host that may not have it")
            let credentials = try #require(try await client.gitCredentials(forClone: base + "/acme/widgets.git"))
            let token = try #require(try await client.currentInstallationToken()).value
            #expect(credentials.authorization == "Basic " + Data("x-access-token:\(token)".utf8).base64EncodedString())
            #expect("\(credentials)" == "<git credentials from GitHub App 4242 (key from file /test/app.pem)>")
        }
    }
}
