import MirrorTestSupport
import Foundation
import GitHubSim
import Logging
@testable import MirrorCore
@testable import MirrorSQLite

/// A running `github-sim` on loopback plus a store in a temp dir, wired the
/// way `commitsctl sync` wires them: real libcurl, real HTTP, real SQLite.
final class SimulatorHarness: ScopedService, @unchecked Sendable {
    let simulator: GitHubSimulator
    let directory: TemporaryDirectory
    var storePath: String { directory.path("commits.sqlite") }
    var store: StoreInspection { StoreInspection(storePath) }

    static func start(_ repositories: [SimRepository], configuration: SimConfiguration = .init()) async throws -> SimulatorHarness {
        TestStoreDrivers.register()  // the syncs and discoveries it drives open the store by location
        let simulator = try GitHubSimulator(configuration: configuration, repositories: repositories)
        try await simulator.start()
        return SimulatorHarness(simulator: simulator, directory: try TemporaryDirectory())
    }

    private init(simulator: GitHubSimulator, directory: TemporaryDirectory) {
        self.simulator = simulator
        self.directory = directory
    }

    func shutDownForScope() async { try? await simulator.shutdown() }

    /// Retries are fast in tests; the behaviour (and the counts) are the same.
    static func fastRetries() -> RetryPolicy {
        var policy = RetryPolicy()
        policy.baseDelay = .milliseconds(5)
        policy.maximumDelay = .milliseconds(50)
        policy.secondaryLimitDelay = .milliseconds(50)
        policy.maximumAttempts = 6
        return policy
    }

    func client(token: String? = "test-token", retry: RetryPolicy = fastRetries(), apiURL: String? = nil) throws -> GitHubClient {
        var configuration = GitHubClient.Configuration(
            apiURL: apiURL ?? simulator.baseURL,
            token: token.map { GitHubToken(value: $0, source: "environment variable GITHUB_TOKEN") })
        configuration.retry = retry
        return try GitHubClient(configuration: configuration, logger: TestSupport.quietLogger)
    }

    /// One sync with a fresh client and store connection, as a separate process run would do.
    @discardableResult
    func sync(_ repository: String, branch: String? = nil, client: GitHubClient? = nil) async throws -> SyncReport {
        let store = try MirrorStore(path: storePath)
        let engine = SyncEngine(client: try client ?? self.client(), store: store, logger: TestSupport.quietLogger)
        return try await engine.sync(RepositoryName(parsing: repository)!, branch: branch)
    }
}
