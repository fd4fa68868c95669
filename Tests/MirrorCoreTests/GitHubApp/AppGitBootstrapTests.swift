import Foundation
import GitHubSim
import MirrorTestSupport
import Testing
import _CryptoExtras

@testable import MirrorCore
@testable import MirrorSQLite

/// Issue #28 acceptance 2: a private repository over an App installation
/// bootstraps over git, the git host paired with the API host receiving the
/// installation token as `x-access-token` Basic auth; a clone host that is
/// not paired never receives it, and the sync goes on over REST.
@Suite struct AppGitBootstrapTests {
    // The pack index is the SQLite backend's, registered as each executable does.
    init() { TestStoreDrivers.register() }

    static let commits = 3_000
    static let bootstrap = GitBootstrap(minimumPages: 5, pace: .forTests)

    static func sync(cloneHost: String?, into path: String) async throws -> (SyncReport, SimStats) {
        let key = try AppKeys.generate()
        var configuration = SimConfiguration()
        configuration.app = SimApp(appID: 9, publicKey: key.publicKey, installations: [SimInstallation(id: 90, account: "acme")])
        configuration.cloneHost = cloneHost
        configuration.validTokens = []
        let repository = SimRepository(
            owner: "acme", name: "vault", id: 91, source: .synthetic(SyntheticSpec(commits: commits, shape: .realistic, seed: 5)),
            isPrivate: true)
        let simulator = try GitHubSimulator(configuration: configuration, repositories: [repository])
        try await simulator.start()
        return try await withRunning(simulator) { simulator in
            let appKey = try GitHubAppKey(pem: AppKeys.pem(key, .pkcs8), source: "test")
            var client = GitHubClient.Configuration(
                apiURL: simulator.baseURL, app: GitHubApp(appID: 9, installation: .onlyOne(owner: "acme"), key: appKey))
            client.retry = SimulatorHarness.fastRetries()
            let engine = SyncEngine(
                client: try GitHubClient(configuration: client, logger: TestSupport.quietLogger), store: try MirrorStore(path: path),
                logger: TestSupport.quietLogger, gitBootstrap: bootstrap)
            let report = try await engine.sync(RepositoryName(parsing: "acme/vault")!)
            return (report, simulator.stats())
        }
    }

    @Test func aPrivateRepositoryBootstrapsOverGitWithTheInstallationToken() async throws {
        let directory = try TemporaryDirectory()
        let (report, stats) = try await Self.sync(cloneHost: nil, into: directory.path("git.sqlite"))
        #expect(report.addedOverGit == Self.commits - 100, "the first page over REST, the rest over git")
        #expect(report.added == Self.commits)
        #expect(stats.gitRequests >= 2 && stats.expiredTokenRefusals == 0)
    }

    @Test func aCloneHostNotPairedWithTheAPINeverGetsTheInstallationToken() async throws {
        // clone_url names the same server as `localhost`, the API is 127.0.0.1: another host. Git
        // is asked without credentials and refuses the private repository; REST stores it all.
        let directory = try TemporaryDirectory()
        let (report, stats) = try await Self.sync(cloneHost: "localhost", into: directory.path("rest.sqlite"))
        #expect(report.addedOverGit == 0 && report.added == Self.commits)
        #expect(stats.gitRequests >= 1, "git was asked, without the token, and refused")
    }
}
