import Foundation
import GitHubSim
import MirrorTestSupport
import SQLite
import Testing

@testable import MirrorCore
@testable import MirrorSQLite

/// Schema version 9 (issue #29): a store of version 8 holding two synced
/// branches gains `repository_branches` and `branch_commits` when opened, backed
/// up first like every upgrade, with each branch's rows backfilled from its
/// recorded head: exactly what the simulator's branch reaches (`git rev-list`).
@Suite struct BranchMembershipUpgradeTests {
    static let repository = SimRepository(
        owner: "acme", name: "widgets", id: 78,
        source: .synthetic(SyntheticSpec(commits: 260, authors: 9, mergeEvery: 4, seed: 5)))
    static let version8 = Migrator(Array(Schema.migrator.migrations.prefix { $0.version <= 8 }))

    /// Each branch's rows as `branch sha` lines, sorted.
    static func membership(_ path: String) throws -> [String] {
        try Connection(path: path, mode: .readOnly).prepare(
            """
            SELECT b.name || ' ' || c.sha FROM branch_commits bc JOIN repository_branches b ON b.id = bc.branch_id
            JOIN commits c ON c.id = bc.commit_id ORDER BY 1
            """
        ).map { $0.string(0) }
    }

    static func schema(_ path: String) throws -> [String] {
        try Connection(path: path, mode: .readOnly)
            .prepare("SELECT type || ' ' || name || ' ' || coalesce(sql, '') FROM sqlite_master ORDER BY type, name")
            .map { $0.string(0) }
    }

    @Test func aVersion8StoreGetsEachBranchsRowsByReachabilityFromItsHead() async throws {
        try await withRunning(SimulatorHarness.start([Self.repository])) { harness in
            let sim = harness.simulator
            let head = try sim.headSHA(owner: "acme", name: "widgets")
            try sim.setBranch(owner: "acme", name: "widgets", branch: "release/1.0", to: head)
            try sim.moveBranch(owner: "acme", name: "widgets", branch: "release/1.0", back: 70)
            _ = try await harness.sync("acme/widgets")
            _ = try await harness.sync("acme/widgets", branch: "release/1.0")
            var expected: [String] = []
            for branch in ["main", "release/1.0"] {
                let reached = try sim.reachableSHAs(owner: "acme", name: "widgets", branch: branch)
                #expect(!reached.isEmpty)
                expected += reached.map { "\(branch) \($0)" }
            }
            expected.sort()
            #expect(try Self.membership(harness.storePath) == expected, "the sync kept the rows")

            // The same store as version 8 left it: the two tables were all version 9 added.
            let old = harness.directory.path("old.sqlite")
            try FileManager.default.copyItem(atPath: harness.storePath, toPath: old)
            do {
                let connection = try Connection(path: old)
                try connection.executeScript(
                    """
                    BEGIN;
                    DROP TABLE branch_commits;
                    DROP TABLE repository_branches;
                    DELETE FROM schema_migrations WHERE version = 9;
                    COMMIT;
                    """)
            }
            let fresh = harness.directory.path("fresh-v8.sqlite")
            _ = try MirrorStore(path: fresh, migrator: Self.version8)
            #expect(try Self.schema(old) == Self.schema(fresh), "a faithful version 8 store")

            let upgraded = try MirrorStore(path: old)
            let upgrade = try #require(upgraded.upgraded)
            #expect(upgrade.fromVersion == 8 && upgrade.toVersion == 9)
            #expect(FileManager.default.fileExists(atPath: upgrade.backupPath))
            #expect(try Self.membership(old) == expected, "backfilled from each head")
            #expect(try Schema.migrator.appliedVersion(in: Connection(path: upgrade.backupPath, mode: .readOnly)) == 8)
            let check = try MirrorReader(path: old).check()
            #expect(check.foreignKeyViolations.isEmpty && check.integrityOK)
        }
    }
}
