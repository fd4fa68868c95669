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
        SimRepository.widgets(id: 77, SyntheticSpec(commits: 400, authors: 20, mergeEvery: 6, seed: 3))
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

    /// Runs one listing through a proxy that rewrites the branch pages with `edit`; the error it threw.
    func hostileListing(_ harness: SimulatorHarness, _ edit: @escaping @Sendable (inout HostileGitHub.Answer) -> Void) async throws
        -> any Error
    {
        let proxy = try HostileGitHub(upstream: harness.simulator.baseURL)
        defer { proxy.stop() }
        proxy.tamper { request, answer in
            if request.path.hasSuffix("/branches") { edit(&answer) }
        }
        do {
            _ = try await BranchListing.list(Self.name, previous: nil, client: try harness.client(apiURL: proxy.baseURL))
        } catch {
            return error
        }
        Issue.record("a hostile branch listing was believed")
        return CancellationError()
    }

    @Test func aListingThatContradictsItselfIsRefusedWhole() async throws {
        try await withRunning(SimulatorHarness.start([Self.repository()])) { harness in
            try harness.simulator.moveBranch(owner: "acme", name: "widgets", branch: "dev", back: 3)
            let prefix = "acme/widgets's branch listing is inconsistent ("
            let twice = try await hostileListing(harness) { answer in answer.elements = answer.elements + answer.elements.prefix(1) }
            #expect("\(twice)" == prefix + "it lists 'dev' twice); nothing stored was changed")
            let badName = try await hostileListing(harness) { answer in
                var elements = answer.elements
                elements[0]["name"] = "../etc"
                answer.elements = elements
            }
            #expect("\(badName)" == prefix + "it lists '../etc', not a branch name: it contains '..'); nothing stored was changed")
            let badHead = try await hostileListing(harness) { answer in
                var elements = answer.elements
                elements[1]["commit"] = ["sha": "HEAD~1"]
                answer.elements = elements
            }
            #expect("\(badHead)" == prefix + "the head of 'main', 'HEAD~1', is not a commit sha); nothing stored was changed")
            let offOrigin = try await hostileListing(harness) { answer in
                answer.setHeader("Link", "<http://169.254.169.254/latest/meta-data?page=2>; rel=\"next\"")
            }
            #expect(
                "\(offOrigin)".hasPrefix(
                    "acme/widgets's branch listing: the next-page link 'http://169.254.169.254/latest/meta-data?page=2' leaves http://127.0.0.1:"
                ), "\(offOrigin)")
            let loop = try await hostileListing(harness) { answer in
                answer.setHeader("Link", "</repos/acme/widgets/branches?per_page=100>; rel=\"next\"")
            }
            #expect("\(loop)".contains("/repos/acme/widgets/branches?per_page=100"), "\(loop)")
        }
    }
}
