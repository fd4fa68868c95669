import Foundation
import MirrorTestSupport
import SQLite
import Testing

/// `branches:` on an `OWNER/*` entry (issue #29): every repository the pattern
/// selects mirrors the branches its listing has that the names and globs select,
/// instead of its default branch; a repository without a matching branch mirrors
/// none. Real commitsctl and github-sim processes, a real SQLite file.
@Suite struct PatternBranchesCLITests {
    let directory: TemporaryDirectory
    init() throws { directory = try TemporaryDirectory() }
    var db: String { directory.path("commits.sqlite") }

    @Test func eachRepositoryOfThePatternMirrorsTheBranchesItsListingHas() async throws {
        let sim = try await SimulatorProcess.start([
            "--synthetic", "acme/widgets=300:5", "--synthetic", "acme/gadgets=200:6", "--synthetic", "other/tools=50:7",
        ])
        defer { sim.stop() }
        for (repository, branch, back) in [
            ("widgets", "release/1.0", 40), ("widgets", "feature/x", 5), ("gadgets", "release/2.0", 20), ("gadgets", "dev", 3),
        ] {
            _ = try await sim.control("/_sim/repos/acme/\(repository)/branch?name=\(branch)&back=\(back)", method: "POST")
        }
        let config = try directory.write(
            "config.yaml",
            """
            store: \(db)
            api_url: \(sim.baseURL)
            git_bootstrap: false
            repositories:
              - name: acme/*
                branches: [main, "release/*"]
              - other/tools

            """)
        let sync = { try await run("commitsctl", ["sync", "--config", config], environment: ["GITHUB_TOKEN": "test-token"]) }
        let first = try await sync()
        #expect(first.status == 0, "\(first.stderr)")
        let synced = first.lines.filter { $0.contains("@") }.map { String($0.prefix { $0 != ":" }) }.sorted()
        #expect(
            synced == [
                "acme/gadgets@main", "acme/gadgets@release/2.0", "acme/widgets@main", "acme/widgets@release/1.0", "other/tools@main",
            ], "\(first.stdout)")
        let connection = try Connection(path: db, mode: .readOnly)
        #expect(try connection.scalarInt("SELECT count(*) FROM sync_state WHERE complete = 1") == 5)
        #expect(try connection.scalarInt("SELECT count(*) FROM sync_state WHERE branch IN ('dev', 'feature/x')") == 0)
        #expect(try await run("commitsctl", ["check", "--db", db]).status == 0)

        // Nothing moved: the owner's listing, both branch listings, other/tools' head and the three tag listings, each a 304.
        try await sim.control("/_sim/reset-stats", method: "POST")
        let idle = try await sync()
        #expect(idle.status == 0, "\(idle.stderr)")
        let stats = try await sim.control("/_sim/stats")
        #expect(stats["requests"] as? Int == 7 && stats["notModified"] as? Int == 7, "\(stats)")

        // A new matching branch of one of them is mirrored on the next run.
        _ = try await sim.control("/_sim/repos/acme/gadgets/branch?name=release/3.0&back=2", method: "POST")
        let third = try await sync()
        #expect(third.lines.contains { $0.hasPrefix("acme/gadgets@release/3.0: ") }, "\(third.stdout)")
    }
}
