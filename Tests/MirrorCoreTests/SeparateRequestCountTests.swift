import GitHubSim
import MirrorTestSupport
import Testing

@testable import MirrorCore

/// commitsd's lanes share one client: each sync's report counts its own requests, the
/// shared client all of them, and the token's rate limit is the one last seen by any.
@Suite struct SeparateRequestCountTests {
    @Test func aClientCountingSeparatelyCountsItsOwnRequestsAndTheSharedOneCountsAll() async throws {
        try await withRunning(try await startSimulator([("one", 10), ("two", 10)])) { simulator in
            let shared = try GitHubClient(
                configuration: GitHubClient.Configuration(
                    apiURL: simulator.baseURL, token: GitHubToken(value: "test-token", source: "test")),
                logger: TestSupport.quietLogger)
            let first = shared.countingSeparately()
            let second = shared.countingSeparately()
            _ = try await first.repository(RepositoryName(parsing: "acme/one")!)
            _ = try await second.repository(RepositoryName(parsing: "acme/two")!)
            _ = try await second.repository(RepositoryName(parsing: "acme/two")!)
            #expect(first.usage.requests == 1 && second.usage.requests == 2 && shared.usage.requests == 3)
            #expect(shared.usage.rateLimit?.remaining == 4997)
            #expect(first.usage.rateLimit == shared.usage.rateLimit, "the token's budget, whoever saw it last")
            #expect(second.countingSeparately().usage.requests == 0)
        }
    }
}
