import Foundation
import GitHubSim
import MirrorTestSupport
import SQLite
import Testing

/// A repository is its GitHub id: a rename or transfer (GitHub answers the old
/// name with 301) keeps one row and one history, found by any of its names.
@Suite struct RepositoryIdentityCLITests {
    @Test func aRenamedRepositorySyncsByOldNameNewNameAndAnyCase() async throws {
        try await withRunning(HostileHarness.start(behind: 10)) { harness in
            try harness.simulator.rename(owner: "acme", name: "widgets", to: "newco", newName: "gadgets")
            let api = harness.simulator.baseURL

            for (name, push) in [("acme/widgets", 0), ("acme/widgets", 4), ("newco/gadgets", 3), ("ACME/Widgets", 3), ("NewCo/GADGETS", 0)]
            {
                if push > 0 { try harness.simulator.moveHead(owner: "newco", name: "gadgets", forward: push) }
                let result = try await harness.sync(apiURL: api, repository: name)
                #expect(result.status == 0, "\(name): \(result.stderr)")
                try harness.expectNoLeak(result)
            }
            let rows = try Connection(path: harness.db, mode: .readOnly)
                .prepare("SELECT full_name, github_id FROM repositories").map { "\($0.string(0)) \($0.int(1))" }
            #expect(rows == ["newco/gadgets 501"])
            #expect(try harness.store.onBranchSHAs() == harness.simulator.reachableSHAs(owner: "newco", name: "gadgets"))

            let byOldName = try await harness.commitsctl(["query", "--repo", "acme/widgets", "--format", "ndjson"])
            #expect(byOldName.status == 0, "\(byOldName.stderr)")
            #expect(byOldName.lines.count == (try harness.store.onBranchSHAs().count))
            let check = try await harness.commitsctl(["check"])
            #expect(check.status == 0, "\(check.stdout)")
        }
    }

    /// Issue #25 item 5: `acme/r3` deleted, then recreated with another GitHub id.
    /// The new one is mirrored exactly under its real name (no internal name in any
    /// request URL); the old one's history stays, queryable as `acme/r3#<old id>`.
    /// Through an `acme/*` pattern (the owner's listing shows the new id), or by
    /// name (GitHub's 404 marked the old one gone first; another id under an
    /// active mirrored name is still refused, `anotherRepositoryUnderTheSameNameIsRefused`).
    @Test(arguments: ["acme/*", "acme/r3"])
    func aRepositoryRecreatedUnderAMirroredNameSyncsUnderItsRealName(_ mirrored: String) async throws {
        let directory = try TemporaryDirectory()
        let store = directory.path("commits.sqlite")
        let repositories = [
            SimRepository(owner: "acme", name: "r1", id: 331, source: .synthetic(SyntheticSpec(commits: 7, seed: 1))),
            SimRepository(owner: "acme", name: "r3", id: 333, source: .synthetic(SyntheticSpec(commits: 12, seed: 3))),
        ]
        let simulator = try GitHubSimulator(configuration: .init(), repositories: repositories)
        try await simulator.start()
        try await withRunning(simulator) { simulator in
            func sync() async throws -> ProcessResult {
                let result = try #require(
                    try await runBounded(
                        "commitsctl", ["sync", mirrored, "--db", store, "--api-url", simulator.baseURL],
                        limit: .seconds(240), environment: ["GITHUB_TOKEN": "test-token"]),
                    "commitsctl sync did not end within 240 s")
                #expect(result.peakResident(), "peak resident \(result.peakResidentKiB ?? 0) KiB")
                return result
            }
            #expect(try await sync().status == 0)
            let old = StoreInspection(store).memberSHAsSoFar(of: "acme/r3")
            #expect(old.count == 12)

            try simulator.deleteRepository(owner: "acme", name: "r3")
            let deleted = try await sync()
            #expect(deleted.status == (mirrored == "acme/*" ? 0 : 1), "\(deleted.stderr)")
            try simulator.addRepository(
                SimRepository(owner: "acme", name: "r3", id: 777, source: .synthetic(SyntheticSpec(commits: 9, seed: 77))))
            for _ in 0..<2 {
                let result = try await sync()
                #expect(result.status == 0, "\(result.stderr)")
                #expect(!(result.stdout + result.stderr).contains("#"), "\(result.stdout)\(result.stderr)")
            }
            let recreated = try simulator.reachableSHAs(owner: "acme", name: "r3")
            #expect(StoreInspection(store).memberSHAsSoFar(of: "acme/r3") == recreated)
            #expect(StoreInspection(store).memberSHAsSoFar(of: "acme/r3#333") == old)
            #expect(old.isDisjoint(with: recreated))
            let states = StoreInspection(store).repositoryStates()
            #expect(states["acme/r3"] == "active" && states["acme/r3#333"] == "gone", "\(states)")

            let oldLog = try await run("commitsctl", ["query", "--repo", "acme/r3#333", "--format", "ndjson", "--db", store])
            #expect(oldLog.status == 0, "\(oldLog.stderr)")
            #expect(oldLog.lines.count == old.count)
            let newLog = try await run("commitsctl", ["query", "--repo", "acme/r3", "--format", "ndjson", "--db", store])
            #expect(newLog.lines.count == recreated.count, "\(newLog.stderr)")
            let refused = try await run("commitsctl", ["sync", "acme/r3#333", "--db", store, "--api-url", simulator.baseURL])
            #expect(refused.status != 0 && refused.stderr.split(separator: "\n").count == 1, "\(refused.stderr)")
            let check = try await run("commitsctl", ["check", "--db", store])
            #expect(check.status == 0, "\(check.stdout)\(check.stderr)")
        }
    }
}
