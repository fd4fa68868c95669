import Foundation
import GitHubSim
import MirrorTestSupport
import Testing

@testable import MirrorCore

/// A stored branch a listing lacks is marked gone only once GitHub answers 404 for it alone
/// (`GoneBranches`, docs/BRANCHES.md "Gone branches"): real libcurl to github-sim on loopback,
/// a SQLite file and a PostgreSQL database. The listing omits a branch that still exists
/// through `FaultPlan.branchListingOmits`, as a listing whose pages shifted would.
extension StoreContractTests {
    static let releases = MirrorConfiguration.BranchGlobs(
        name: RepositoryName(owner: "acme", name: "widgets"), selection: BranchSelection([BranchPattern(parsing: "release/*")!]))

    /// A store mirroring acme/widgets's main, release/1.0 and release/2.0, none gone.
    static func storeWithReleases(_ backend: Backend) async throws -> StoreUnderTest {
        let store = try await StoreUnderTest(backend)
        let repositoryID = try await Self.storeFromGit(in: store)
        for (branch, head) in [("main", 5), ("release/1.0", 6), ("release/2.0", 7)] {
            try Self.recordHead(head, of: branch, in: store, repositoryID: repositoryID)
        }
        return store
    }

    /// The branches the store has gone.
    static func goneBranches(_ store: StoreUnderTest) throws -> [String] {
        try store.location.openCommitReader().allSyncStates().filter { $0.branchGoneSince != nil }.map(\.branch).sorted()
    }

    /// The listing as the callers read it, then the confirmations.
    static func listAndConfirm(_ store: StoreUnderTest, client: GitHubClient, limit: Int = GoneBranches.confirmationsPerCall)
        async throws -> GoneBranches.Outcome
    {
        let listed = try await BranchListing.list(releases.name, previous: nil, client: client).listing.branches.map(\.name)
        return try await GoneBranches.confirmAndMark(releases, listed: Set(listed), store: store.location, client: client, limit: limit)
    }

    @Test(arguments: Backend.allCases)
    func aBranchTheListingOmitsButGitHubStillHasIsNotMarkedGoneADeletedOneIs(backend: Backend) async throws {
        let store = try await Self.storeWithReleases(backend)
        try await withRunning(SimulatorHarness.start([BranchListingTests.repository()])) { harness in
            let simulator = harness.simulator
            for branch in ["release/1.0", "release/2.0"] {
                try simulator.moveBranch(owner: "acme", name: "widgets", branch: branch, back: 5)
            }
            var omitting = FaultPlan()
            omitting.branchListingOmits = ["release/2.0"]
            simulator.setFaults(omitting)
            let client = try harness.client()

            let kept = try await Self.listAndConfirm(store, client: client)
            #expect(kept.marked.isEmpty && kept.stillThere == ["release/2.0"] && kept.isSettled && kept.failure == nil)
            #expect(try Self.goneBranches(store).isEmpty)
            #expect(client.usage.byKind[.branchLookup] == RequestTally(requests: 1, points: 1), "one confirmation")
            #expect(simulator.stats().errors == 0)

            try simulator.deleteBranch(owner: "acme", name: "widgets", branch: "release/1.0")
            let deleted = try await Self.listAndConfirm(store, client: client)
            #expect(deleted.marked == ["release/1.0"] && deleted.stillThere == ["release/2.0"] && deleted.isSettled)
            #expect(try Self.goneBranches(store) == ["release/1.0"])
            #expect(client.usage.byKind[.branchLookup]?.requests == 3)

            // Gone already: not asked about again.
            let again = try await Self.listAndConfirm(store, client: client)
            #expect(again.marked.isEmpty && again.stillThere == ["release/2.0"])
            #expect(client.usage.byKind[.branchLookup]?.requests == 4)
        }
    }

    @Test(arguments: Backend.allCases)
    func atMostTheLimitIsAskedPerCallAndTheRestNextTime(backend: Backend) async throws {
        let store = try await Self.storeWithReleases(backend)
        try await withRunning(SimulatorHarness.start([BranchListingTests.repository()])) { harness in
            let client = try harness.client()
            let first = try await Self.listAndConfirm(store, client: client, limit: 1)
            #expect(first.marked == ["release/1.0"] && first.unconfirmed == ["release/2.0"] && !first.isSettled)
            #expect(client.usage.byKind[.branchLookup]?.requests == 1)
            let second = try await Self.listAndConfirm(store, client: client, limit: 1)
            #expect(second.marked == ["release/2.0"] && second.isSettled)
            #expect(try Self.goneBranches(store) == ["release/1.0", "release/2.0"])
        }
    }

    @Test func aConfirmationThatFailsMarksNothingItDidNotConfirm() async throws {
        let store = try await Self.storeWithReleases(.sqlite)
        try await withRunning(SimulatorHarness.start([BranchListingTests.repository()])) { harness in
            let proxy = try HostileGitHub(upstream: harness.simulator.baseURL)
            defer { proxy.stop() }
            proxy.tamper { request, answer in
                if request.path.hasSuffix("/branches/release/2.0") { answer.status = 502 }
            }
            let client = try harness.client(apiURL: proxy.baseURL)
            let outcome = try await Self.listAndConfirm(store, client: client)
            #expect(outcome.marked == ["release/1.0"] && outcome.unconfirmed == ["release/2.0"], "\(outcome)")
            guard case .serverError(status: 502, _, _) = outcome.failure else {
                Issue.record("expected a 502, got \(String(describing: outcome.failure))")
                return
            }
            #expect(try Self.goneBranches(store) == ["release/1.0"])
        }
    }

    @Test func branchExistsAsksForTheBranchByItsNameSlashesAndAll() async throws {
        try await withRunning(SimulatorHarness.start([BranchListingTests.repository()])) { harness in
            let simulator = harness.simulator
            for branch in ["release/1.0", "fix#12", "100%"] {
                try simulator.moveBranch(owner: "acme", name: "widgets", branch: branch, back: 2)
            }
            let client = try harness.client()
            let name = RepositoryName(owner: "acme", name: "widgets")
            for branch in ["main", "release/1.0", "fix#12", "100%"] {
                #expect(try await client.branchExists(name, branch: branch), "\(branch)")
            }
            for branch in ["release", "release/1.0/x", "fix", "100"] {
                #expect(try await !client.branchExists(name, branch: branch), "\(branch)")
            }
            #expect(client.usage.byKind[.branchLookup]?.requests == 8)
        }
    }
}
