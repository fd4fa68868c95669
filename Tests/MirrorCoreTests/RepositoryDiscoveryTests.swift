import Foundation
import GitHubSim
import MirrorTestSupport
import Testing

@testable import MirrorCore
@testable import MirrorSQLite

/// `RepositoryDiscovery` over real HTTP: github-sim's owner listings, and a
/// hostile proxy in front of it for answers the simulator never gives.
@Suite struct RepositoryDiscoveryTests {
    static let everything = [RepositoryDiscovery.Selection(pattern: RepositoryPattern(parsing: "acme/*")!)]

    static func repositories(_ count: Int) -> [SimRepository] {
        (1...count).map { index in
            SimRepository(owner: "acme", name: "r\(index)", id: 7000 + index, source: .synthetic(SyntheticSpec(commits: 3, seed: 1)))
        }
    }

    func discover(_ harness: SimulatorHarness, apiURL: String? = nil) async throws -> RepositoryDiscovery.Outcome {
        let discovery = RepositoryDiscovery(
            store: .sqliteFile(harness.storePath), client: try harness.client(apiURL: apiURL), logger: TestSupport.quietLogger)
        return try await discovery.discover(owner: "acme", selections: Self.everything)
    }

    @Test func aListingOfSeveralPagesIsFollowedAndThenCostsOneFree304APage() async throws {
        try await withRunning(SimulatorHarness.start(Self.repositories(250))) { harness in
            let first = try await discover(harness)
            #expect(first.selected.count == 250 && first.added.count == 250 && first.requests == 3)
            // Identities are recorded: the sync needs no repository lookup.
            let store = try MirrorStore(path: harness.storePath)
            let r7 = try #require(try store.repository(named: RepositoryName(parsing: "acme/r7")!))
            #expect(r7.githubID == 7007 && r7.defaultBranch == "main")
            harness.simulator.resetStats()
            let second = try await discover(harness)
            #expect(second.unchanged && second.requests == 3 && second.notModified == 3 && second.added.isEmpty)
            #expect(second.selected.map(\.name) == first.selected.map(\.name))
            #expect(harness.simulator.stats().rateLimitUsed.values.reduce(0, +) == 0)
        }
    }

    /// Runs one discovery through a proxy that rewrites answers with `tamper`;
    /// returns the error it threw.
    func hostileDiscovery(
        _ harness: SimulatorHarness, _ tamper: @escaping HostileGitHub.Tamper
    ) async throws -> any Error {
        let proxy = try HostileGitHub(upstream: harness.simulator.baseURL)
        defer { proxy.stop() }
        proxy.tamper(tamper)
        do {
            _ = try await discover(harness, apiURL: proxy.baseURL)
        } catch {
            return error
        }
        Issue.record("the discovery believed a hostile listing")
        return CancellationError()
    }

    /// Owner listing answers only: everything else passes through.
    static func isListing(_ request: HostileServer.Request) -> Bool {
        request.path.hasSuffix("/repos") && !request.path.hasPrefix("/repos/")
    }

    @Test func hostileListingsChangeNothing() async throws {
        try await withRunning(SimulatorHarness.start(Self.repositories(5))) { harness in
            _ = try await discover(harness)
            let before = try StoreInspection(harness.storePath).mirroredFacts()
            let states = StoreInspection(harness.storePath).repositoryStates()
            #expect(states.count == 5 && states.values.allSatisfy { $0 == "active" })

            // Not JSON: retried, then an error; nothing stored changes.
            let notJSON = try await hostileDiscovery(harness) { request, answer in
                if Self.isListing(request) { answer.status = 200; answer.text = "<html>maintenance</html>" }
            }
            #expect("\(notJSON)".contains("could not be read"), "\(notJSON)")

            // Another owner's repository in the listing.
            let stranger = try await hostileDiscovery(harness) { request, answer in
                guard Self.isListing(request) else { return }
                var elements = answer.elements
                elements[0]["full_name"] = "evil/r1"
                answer.status = 200
                answer.elements = elements
            }
            #expect(
                "\(stranger)"
                    == "acme's repository listing is inconsistent (it lists evil/r1, owned by acme); nothing stored was changed, the last listing stays"
            )

            // A next link off the API's origin is never followed.
            let offOrigin = try await hostileDiscovery(harness) { request, answer in
                guard Self.isListing(request) else { return }
                answer.status = 200
                answer.text = answer.text == "" ? "[]" : answer.text
                if answer.elements.isEmpty {
                    answer.elements = [["id": 7001, "full_name": "acme/r1", "owner": ["login": "acme"], "default_branch": "main"]]
                }
                answer.setHeader("Link", "<http://169.254.169.254/latest/meta-data?page=2>; rel=\"next\"")
            }
            #expect(
                "\(offOrigin)".hasPrefix(
                    "acme's repository listing: the next-page link 'http://169.254.169.254/latest/meta-data?page=2' leaves http://127.0.0.1:"
                ), "\(offOrigin)")

            // An empty listing while five repositories are mirrored: none is marked gone.
            let empty = try await hostileDiscovery(harness) { request, answer in
                guard Self.isListing(request) else { return }
                answer.status = 200
                answer.text = "[]"
                answer.setHeader("Link", nil)
                answer.setHeader("ETag", "W/\"empty\"")
            }
            #expect("\(empty)".contains("it is empty, yet 5 repositories of it are mirrored here; none was marked gone"), "\(empty)")

            // The owner answers 404 on both endpoints while its repositories are mirrored.
            let vanished = try await hostileDiscovery(harness) { request, answer in
                guard Self.isListing(request) else { return }
                answer.status = 404
                answer.text = "{\"message\":\"Not Found\"}"
            }
            #expect(
                "\(vanished)".hasPrefix(
                    "GitHub answers 404 for the organization or user acme, whose 5 repositories are mirrored here; none was marked gone"),
                "\(vanished)")

            #expect(try StoreInspection(harness.storePath).mirroredFacts() == before)
            #expect(StoreInspection(harness.storePath).repositoryStates() == states)
            // The last good listing is still the one remembered: an unchanged owner is still free.
            let again = try await discover(harness)
            #expect(again.unchanged && again.notModified == 1, "\(again)")
        }
    }

    @Test func aRepositoryTheListingLeavesOutButGitHubStillServesStaysMirrored() async throws {
        try await withRunning(SimulatorHarness.start(Self.repositories(3))) { harness in
            _ = try await discover(harness)
            let proxy = try HostileGitHub(upstream: harness.simulator.baseURL)
            defer { proxy.stop() }
            proxy.tamper { request, answer in
                guard Self.isListing(request), answer.status == 200 else { return }
                answer.elements = answer.elements.filter { $0["name"] as? String != "r2" }
            }
            let outcome = try await discover(harness, apiURL: proxy.baseURL)
            #expect(outcome.gone.isEmpty)
            #expect(Set(outcome.selected.map(\.name.description)) == ["acme/r1", "acme/r2", "acme/r3"])
            #expect(StoreInspection(harness.storePath).repositoryStates()["acme/r2"] == "active")
            // GitHub was asked about r2 on its own before anything was decided.
            #expect(proxy.requests.contains { $0.path == "/repos/acme/r2" })
        }
    }

    @Test func aRenamedRepositoryKeepsItsRowAndOneMovedAwayIsGone() async throws {
        try await withRunning(SimulatorHarness.start(Self.repositories(3))) { harness in
            _ = try await discover(harness)
            try harness.simulator.rename(owner: "acme", name: "r1", to: "acme", newName: "renamed")
            try harness.simulator.rename(owner: "acme", name: "r2", to: "elsewhere", newName: "r2")
            let outcome = try await discover(harness)
            #expect(Set(outcome.selected.map(\.name.description)) == ["acme/renamed", "acme/r3"])
            #expect(outcome.gone.map(\.name.description) == ["acme/r2"])
            #expect(outcome.gone.first?.reason == "moved to elsewhere/r2, outside the patterns mirrored")
            let states = StoreInspection(harness.storePath).repositoryStates()
            #expect(states == ["acme/renamed": "active", "elsewhere/r2": "gone", "acme/r3": "active"], "\(states)")
        }
    }
}
