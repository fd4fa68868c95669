import Foundation
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

/// The reserve's reset can pass while a sync winds down (with syncs side by side another
/// lane may see the new window first): the walk resumes at once, not 15 minutes later.
@Suite struct ReserveRetryTests {
    @Test func aReserveWhoseResetPassedIsRetriedAtOnce() {
        let now = Date()
        let passed = GitHubError.reserveReached(reserve: 20, resetAt: now.addingTimeInterval(-2))
        #expect(passed.retryAt(now: now) == now.addingTimeInterval(1))
        let coming = GitHubError.reserveReached(reserve: 20, resetAt: now.addingTimeInterval(30))
        #expect(coming.retryAt(now: now) == now.addingTimeInterval(31))
        let primaryPassed = GitHubError.primaryRateLimit(resetAt: now.addingTimeInterval(-2), authenticated: true)
        #expect(primaryPassed.retryAt(now: now) == now.addingTimeInterval(15 * 60), "a server's stale reset: not a fast loop")
    }
}
