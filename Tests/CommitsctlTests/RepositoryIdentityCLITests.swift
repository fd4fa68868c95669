import MirrorTestSupport
import Foundation
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
}
