import Foundation
import GitHubSim
import MirrorTestSupport
import Testing

@testable import MirrorCore

/// Branch discovery's listing (issue #29): every page of `GET /repos/{o}/{r}/branches` through
/// real libcurl to github-sim, each page sent back with its ETag, so an unchanged repository
/// costs 304s and no points, and every create, move, force-push and delete shows on the next one.
@Suite struct BranchListingTests {
    static func repository() -> SimRepository {
        SimRepository(
            owner: "acme", name: "widgets", id: 77, source: .synthetic(SyntheticSpec(commits: 400, authors: 20, mergeEvery: 6, seed: 3)))
    }

    static let name = RepositoryName(owner: "acme", name: "widgets")

    func points(_ simulator: GitHubSimulator) -> Int { simulator.stats().rateLimitUsed.values.reduce(0, +) }

    @Test func everyPageIsListedThenAnUnchangedListingCostsOnly304s() async throws {
        try await withRunning(SimulatorHarness.start([Self.repository()])) { harness in
            let simulator = harness.simulator
            for index in 0..<150 { try simulator.moveBranch(owner: "acme", name: "widgets", branch: "topic/\(index)", back: index) }
            let client = try harness.client()

            let (first, firstUnchanged) = try await BranchListing.list(Self.name, previous: nil, client: client)
            #expect(!firstUnchanged)
            #expect(first.pages.count == 2)
            #expect(first.heads == (try simulator.branchHeads(owner: "acme", name: "widgets")))
            #expect(first.pages.allSatisfy { $0.etag != nil })
            let spent = points(simulator)
            #expect(spent == 2)

            let (second, unchanged) = try await BranchListing.list(Self.name, previous: first, client: client)
            #expect(unchanged && second == first)
            #expect(points(simulator) == spent, "two 304s, no points")
            #expect(simulator.stats().notModified == 2)
        }
    }

    @Test func createMoveForcePushAndDeleteEachShowOnTheNextListing() async throws {
        try await withRunning(SimulatorHarness.start([Self.repository()])) { harness in
            let simulator = harness.simulator
            let client = try harness.client()
            var (listing, _) = try await BranchListing.list(Self.name, previous: nil, client: client)
            #expect(listing.branches.map(\.name) == ["main"])

            let steps: [(String, () throws -> Void)] = [
                ("create", { try simulator.moveBranch(owner: "acme", name: "widgets", branch: "release/1.0", back: 30) }),
                ("move", { try simulator.moveBranch(owner: "acme", name: "widgets", branch: "release/1.0", forward: 10) }),
                ("force-push back", { try simulator.moveBranch(owner: "acme", name: "widgets", branch: "release/1.0", back: 25) }),
                ("default branch moved", { try simulator.moveHead(owner: "acme", name: "widgets", back: 3) }),
                ("delete", { try simulator.deleteBranch(owner: "acme", name: "widgets", branch: "release/1.0") }),
            ]
            for (step, change) in steps {
                try change()
                let (next, unchanged) = try await BranchListing.list(Self.name, previous: listing, client: client)
                #expect(!unchanged, "\(step)")
                #expect(next.heads == (try simulator.branchHeads(owner: "acme", name: "widgets")), "\(step)")
                listing = next
            }
            #expect(listing.branches.map(\.name) == ["main"])
            let (_, unchanged) = try await BranchListing.list(Self.name, previous: listing, client: client)
            #expect(unchanged)
        }
    }

    @Test func aRepositoryGitHubDoesNotKnowIsNotFound() async throws {
        try await withRunning(SimulatorHarness.start([Self.repository()])) { harness in
            await #expect(throws: GitHubError.self) {
                _ = try await BranchListing.list(
                    RepositoryName(owner: "acme", name: "nothing"), previous: nil, client: try harness.client())
            }
        }
    }
}
