import MirrorTestSupport
import Foundation
import GitHubSim
import Testing
@testable import MirrorCore
@testable import MirrorSQLite

@Suite struct SyncEngineTests {
    static let synthetic = SimRepository.widgets(id: 501, SyntheticSpec(commits: 1_234, authors: 40, mergeEvery: 6, seed: 7))

    @Test func fullSyncStoresExactlyTheReachableSetAndASecondSyncIsOne304() async throws {
        try await withRunning(SimulatorHarness.start([Self.synthetic])) { harness in

            let first = try await harness.sync("acme/widgets")
            let expected = try harness.simulator.reachableSHAs(owner: "acme", name: "widgets")
            #expect(expected.count == 1_234)
            #expect(try harness.store.memberSHAs(of: "acme/widgets") == expected)
            #expect(first.added == 1_234)
            #expect(first.complete)
            // repository info + head probe + 13 pages (the walk stops at the roots, before the empty 14th)
            #expect(first.requests == 2 + 13)

            harness.simulator.resetStats()
            let second = try await harness.sync("acme/widgets")
            let stats = harness.simulator.stats()
            #expect(second.added == 0 && second.updated == 0)
            #expect(second.requests == 1 && second.notModified == 1)
            #expect(stats.requests == 1 && stats.notModified == 1)
            #expect(stats.rateLimitUsed.values.reduce(0, +) == 0)  // an authenticated 304 is free
            #expect(try harness.store.memberSHAs(of: "acme/widgets").count == 1_234)
        }
    }

    @Test func newCommitsCostOneProbePlusTheirPages() async throws {
        try await withRunning(SimulatorHarness.start([Self.synthetic])) { harness in
            try harness.simulator.moveHead(owner: "acme", name: "widgets", back: 250)
            try await harness.sync("acme/widgets")
            #expect(try harness.store.memberSHAs(of: "acme/widgets") == harness.simulator.reachableSHAs(owner: "acme", name: "widgets"))

            try harness.simulator.moveHead(owner: "acme", name: "widgets", forward: 150)
            let before = try harness.store.memberSHAs(of: "acme/widgets").count
            let report = try await harness.sync("acme/widgets")
            let after = try harness.simulator.reachableSHAs(owner: "acme", name: "widgets")
            #expect(try harness.store.memberSHAs(of: "acme/widgets") == after)
            let newCommits = after.count - before
            #expect(report.added == newCommits)
            // The probe, the repository lookup that proves a moved head is still this repository, the pages.
            #expect(report.requests == (newCommits + 99) / 100 + 2)
        }
    }

    @Test func emptyRepositoryIsZeroCommitsNotAnError() async throws {
        try await withRunning(SimulatorHarness.start([SimRepository(owner: "acme", name: "void", id: 9, source: .empty)])) { harness in
            let report = try await harness.sync("acme/void")
            #expect(report.added == 0)
            #expect(report.complete)
        }
    }

    @Test func unknownRepositorySaysNotFoundOrPrivate() async throws {
        try await withRunning(SimulatorHarness.start([Self.synthetic])) { harness in
            await #expect {
                try await harness.sync("octo/nope", client: harness.client(token: nil))
            } throws: { error in
                "\(error)" == "repository octo/nope not found (or private, and no token was given)"
            }
            await #expect {
                try await harness.sync("octo/nope")
            } throws: { error in
                "\(error)".contains("not found, or the token from environment variable GITHUB_TOKEN cannot see it")
            }
        }
    }

    @Test func rejectedTokenNamesItsSourceButNeverItsValue() async throws {
        var configuration = SimConfiguration()
        configuration.validTokens = ["the-right-one"]
        try await withRunning(SimulatorHarness.start([Self.synthetic], configuration: configuration)) { harness in
            await #expect {
                try await harness.sync("acme/widgets", client: harness.client(token: "s3cr3t-wrong-token"))
            } throws: { error in
                let text = "\(error)"
                return text.contains("rejected the token from environment variable GITHUB_TOKEN") && !text.contains("s3cr3t")
            }
        }
    }

    @Test func exhaustedRateLimitStopsWithWhenToRetry() async throws {
        var configuration = SimConfiguration()
        configuration.unauthenticatedLimit = 3
        try await withRunning(SimulatorHarness.start([Self.synthetic], configuration: configuration)) { harness in
            await #expect {
                try await harness.sync("acme/widgets", client: harness.client(token: nil))
            } throws: { error in
                let text = "\(error)"
                return (error as? GitHubError)?.isRateLimit == true && text.contains("rate limit exhausted")
                    && text.contains("resets at") && !text.contains("--")  // facts only: the executables add their flags
            }
            // The pages stored before the limit stay, and the walk is resumable.
            let store = try MirrorReader(path: harness.storePath)
            #expect(try store.integrityCheck() == "ok")
            #expect(try store.syncStates().first?.lastError?.contains("rate limit") == true)
        }
    }

    @Test func transientFaultsAreRetriedAndTheResultIsExact() async throws {
        try await withRunning(SimulatorHarness.start([Self.synthetic])) { harness in
            var faults = FaultPlan()
            faults.serverErrorEvery = 7
            faults.truncateEvery = 11
            faults.secondaryLimitEvery = 13
            harness.simulator.setFaults(faults)
            let report = try await harness.sync("acme/widgets")
            #expect(report.complete)
            #expect(try harness.store.memberSHAs(of: "acme/widgets") == harness.simulator.reachableSHAs(owner: "acme", name: "widgets"))
        }
    }

    @Test func anInterruptedFirstSyncResumesWithoutRefetchingStoredPages() async throws {
        try await withRunning(SimulatorHarness.start([Self.synthetic])) { harness in
            var noRetries = SimulatorHarness.fastRetries()
            noRetries.maximumAttempts = 1
            var faults = FaultPlan()
            faults.serverErrorEvery = 5  // every 5th list request fails, and this client gives up at once
            harness.simulator.setFaults(faults)
            var runs = 0
            var complete = false
            while !complete {
                runs += 1
                do {
                    complete = try await harness.sync("acme/widgets", client: harness.client(retry: noRetries)).complete
                } catch let error as GitHubError {
                    guard case .serverError = error else { throw error }
                    #expect(try harness.store.memberSHAs(of: "acme/widgets").count < 1_234)
                }
                #expect(runs < 10)
            }
            #expect(try harness.store.memberSHAs(of: "acme/widgets") == harness.simulator.reachableSHAs(owner: "acme", name: "widgets"))
            let stats = harness.simulator.stats()
            // 13 pages were needed; each failed request is counted too, but no stored page was fetched again.
            #expect(stats.listRequests - stats.errors <= 13)
        }
    }

    @Test func headMovingDuringAnInterruptedSyncStillConverges() async throws {
        try await withRunning(SimulatorHarness.start([Self.synthetic])) { harness in
            try harness.simulator.moveHead(owner: "acme", name: "widgets", back: 400)
            var noRetries = SimulatorHarness.fastRetries()
            noRetries.maximumAttempts = 1
            var faults = FaultPlan()
            faults.serverErrorEvery = 3
            harness.simulator.setFaults(faults)
            await #expect(throws: GitHubError.self) { try await harness.sync("acme/widgets", client: harness.client(retry: noRetries)) }
            harness.simulator.setFaults(FaultPlan())
            try harness.simulator.moveHead(owner: "acme", name: "widgets", forward: 250)
            let report = try await harness.sync("acme/widgets")
            #expect(report.complete)
            #expect(try harness.store.memberSHAs(of: "acme/widgets") == harness.simulator.reachableSHAs(owner: "acme", name: "widgets"))
        }
    }

    @Test func aRedirectToAnotherHostIsRefusedSoTheTokenNeverCrosses() async throws {
        let other = try GitHubSimulator(
            configuration: {
                var configuration = SimConfiguration()
                configuration.host = "127.0.0.2"
                return configuration
            }(), repositories: [Self.synthetic])
        try await other.start()
        try await withRunning(other) { other in
            try await withRunning(SimulatorHarness.start([Self.synthetic])) { harness in
                try harness.simulator.redirect(owner: "acme", name: "widgets", toBaseURL: other.baseURL)

                let error = await #expect(throws: GitHubError.self) { try await harness.sync("acme/widgets") }
                #expect(
                    error.map { "\($0)" }?.contains(
                        "refused a redirect from \(harness.simulator.baseURL)/repos/acme/widgets to \(other.baseURL)") == true,
                    "\(String(describing: error))")
                #expect(harness.simulator.stats().authorizationHeadersSeen > 0)
                #expect(other.stats().requests == 0)
                #expect(other.stats().authorizationHeadersSeen == 0)
            }
        }
    }

    @Test func renamedRepositoryIsFollowedAndRecorded() async throws {
        try await withRunning(SimulatorHarness.start([Self.synthetic])) { harness in
            try harness.simulator.rename(owner: "acme", name: "widgets", to: "acme", newName: "gadgets")
            let report = try await harness.sync("acme/widgets")
            #expect(report.added == 1_234)
            let store = try MirrorReader(path: harness.storePath)
            #expect(try store.repositories().map(\.name.description) == ["acme/gadgets"])
        }
    }
}
