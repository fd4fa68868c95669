import Foundation
import GitHubSim
import MirrorTestSupport
import PostgreSQL
import SQLite
import Testing

@testable import MirrorCore
@testable import MirrorSQLite

/// Schema version 9 (issue #29): a store of version 8 holding two synced
/// branches gains `repository_branches` and `branch_commits` when opened, backed
/// up first like every upgrade, with each branch's rows backfilled from its
/// recorded head: exactly what the simulator's branch reaches (`git rev-list`).
/// The PostgreSQL store's version 3 does the same to a version 2 database.
@Suite struct BranchMembershipUpgradeTests {
    static let repository = SimRepository.widgets(id: 78, SyntheticSpec(commits: 260, authors: 9, mergeEvery: 4, seed: 5))
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

    /// Two branches of the simulator's repository, `release/1.0` 70 first parents behind main,
    /// and each one's `branch sha` lines, sorted.
    static func branchesAndTheirHistory(_ sim: GitHubSimulator) throws -> [String] {
        let head = try sim.headSHA(owner: "acme", name: "widgets")
        try sim.setBranch(owner: "acme", name: "widgets", branch: "release/1.0", to: head)
        try sim.moveBranch(owner: "acme", name: "widgets", branch: "release/1.0", back: 70)
        var expected: [String] = []
        for branch in ["main", "release/1.0"] {
            let reached = try sim.reachableSHAs(owner: "acme", name: "widgets", branch: branch)
            #expect(!reached.isEmpty)
            expected += reached.map { "\(branch) \($0)" }
        }
        return expected.sorted()
    }

    @Test func aVersion2PostgreSQLStoreGetsTheSameBackfill() async throws {
        try await withRunning(SimulatorHarness.start([Self.repository])) { harness in
            let expected = try Self.branchesAndTheirHistory(harness.simulator)
            let uri = try await PostgreSQLServer.shared().createDatabase()
            TestStoreDrivers.register()
            do {
                let engine = SyncEngine(
                    client: try harness.client(), store: try StoreLocation(uri).openSyncWriter(),
                    logger: TestSupport.quietLogger)
                _ = try await engine.sync(RepositoryName(parsing: "acme/widgets")!)
                _ = try await engine.sync(RepositoryName(parsing: "acme/widgets")!, branch: "release/1.0")
            }
            let connection = try PostgreSQLConnection(uri: uri)
            func membership() throws -> [String] {
                let rows = try connection.execute(
                    """
                    SELECT b.name || ' ' || c.sha FROM branch_commits bc JOIN repository_branches b ON b.id = bc.branch_id
                    JOIN commits c ON c.id = bc.commit_id ORDER BY (b.name || ' ' || c.sha) COLLATE "C"
                    """)
                return (0..<rows.count).compactMap { rows.string($0, 0) }
            }
            #expect(try membership() == expected, "the sync kept the rows")
            // The database as version 2 left it: what version 3 created, dropped.
            try connection.executeScript(
                """
                BEGIN;
                DROP TABLE branch_commits;
                DROP TABLE repository_branches;
                DROP FUNCTION repository_branches_deleted_cascade();
                DELETE FROM commits_mirror_schema WHERE version = 3;
                COMMIT;
                """)
            _ = try StoreLocation(uri).openSyncWriter()
            #expect(try connection.execute("SELECT count(*) FROM commits_mirror_schema WHERE version = 3").int(0, 0) == 1)
            #expect(try membership() == expected, "backfilled from each head")
            let check = try StoreLocation(uri).openCommitReader().check()
            #expect(check.foreignKeyViolations.isEmpty && check.isComplete && !check.isDamaged, "\(check)")
        }
    }

    @Test func aVersion8StoreGetsEachBranchsRowsByReachabilityFromItsHead() async throws {
        try await withRunning(SimulatorHarness.start([Self.repository])) { harness in
            let expected = try Self.branchesAndTheirHistory(harness.simulator)
            _ = try await harness.sync("acme/widgets")
            _ = try await harness.sync("acme/widgets", branch: "release/1.0")
            #expect(try Self.membership(harness.storePath) == expected, "the sync kept the rows")

            // The same store as version 8 left it: the tables later versions added dropped,
            // and the message index's triggers as version 5 left them.
            let old = harness.directory.path("old.sqlite")
            try FileManager.default.copyItem(atPath: harness.storePath, toPath: old)
            do {
                let connection = try Connection(path: old)
                try connection.executeScript(
                    """
                    BEGIN;
                    DROP TABLE pull_request_listings;
                    DROP TABLE pull_requests;
                    DROP TABLE tag_listings;
                    DROP TABLE tag_containment;
                    DROP TABLE tags;
                    DROP TABLE commit_changes_read;
                    DROP TABLE commit_changes;
                    DROP TABLE paths;
                    DROP TABLE branch_listings;
                    DROP TABLE branch_commits;
                    DROP TABLE repository_branches;
                    DROP TABLE message_index_coverage;
                    DROP TRIGGER commits_fts_after_insert;
                    DROP TRIGGER commits_fts_after_delete;
                    DROP TRIGGER commits_fts_after_update;
                    \(Schema.messageIndexTriggers)
                    DROP TRIGGER commits_fts_after_insert;
                    DELETE FROM schema_migrations WHERE version >= 9;
                    COMMIT;
                    """)
            }
            let fresh = harness.directory.path("fresh-v8.sqlite")
            _ = try MirrorStore(path: fresh, migrator: Self.version8)
            #expect(try Self.schema(old) == Self.schema(fresh), "a faithful version 8 store")

            let upgraded = try MirrorStore(path: old)
            let upgrade = try #require(upgraded.upgraded)
            #expect(upgrade.fromVersion == 8 && upgrade.toVersion == Schema.migrator.latestVersion)
            #expect(FileManager.default.fileExists(atPath: upgrade.backupPath))
            #expect(try Self.membership(old) == expected, "backfilled from each head")
            #expect(try Schema.migrator.appliedVersion(in: Connection(path: upgrade.backupPath, mode: .readOnly)) == 8)
            let check = try MirrorReader(path: old).check()
            #expect(check.foreignKeyViolations.isEmpty && check.integrityOK)
        }
    }
}
