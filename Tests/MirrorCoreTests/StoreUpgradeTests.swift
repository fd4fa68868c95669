import MirrorTestSupport
import Foundation
import GitHubSim
import SQLite
import Testing
@testable import MirrorCore
@testable import MirrorSQLite

/// Issue #6 "migrations" (seed 003: never lose a user's data in a migration):
/// a store made by an older schema is backed up beside itself before it is
/// upgraded in one transaction; a failed upgrade leaves it as it was and names
/// the backup.
@Suite struct StoreUpgradeTests {
    static let repository = SimRepository.widgets(id: 77, SyntheticSpec(commits: 450, authors: 12, mergeEvery: 5, seed: 3))
    /// The schema as its first released version left it.
    static let version1 = Migrator(Array(Schema.migrator.migrations.prefix(1)))

    /// A store exactly as version 1 of the program left it, holding a synced history.
    static func makeVersion1Store(_ harness: SimulatorHarness) async throws {
        let current = harness.directory.path("current.sqlite")
        do {
            let engine = SyncEngine(
                client: try harness.client(), store: try MirrorStore(path: current),
                logger: TestSupport.quietLogger)
            _ = try await engine.sync(RepositoryName(parsing: "acme/widgets")!)
        }
        let store = try MirrorStore(path: harness.storePath, migrator: version1)
        try OlderStore.copyVersion1Data(from: current, into: store.db)
    }

    static func schemaVersion(_ path: String) throws -> Int {
        try Schema.migrator.appliedVersion(in: Connection(path: path, mode: .readOnly))
    }

    /// Every table, index and trigger definition: the schema, for "left as it was".
    static func schema(_ path: String) throws -> [String] {
        try Connection(path: path, mode: .readOnly)
            .prepare("SELECT type || ' ' || name || ' ' || coalesce(sql, '') FROM sqlite_master ORDER BY type, name")
            .map { $0.string(0) }
    }

    static func backups(of path: String) throws -> [String] {
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
        let name = URL(fileURLWithPath: path).lastPathComponent
        return try FileManager.default.contentsOfDirectory(atPath: directory)
            .filter { $0.hasPrefix("\(name).backup-") && !$0.hasSuffix("-wal") && !$0.hasSuffix("-shm") }.map { "\(directory)/\($0)" }
            .sorted()
    }

    @Test func anUpgradeWritesAVerifiedBackupFirstAndKeepsEveryCommit() async throws {
        try await withRunning(SimulatorHarness.start([Self.repository])) { harness in
            try await Self.makeVersion1Store(harness)
            let before = try harness.store.mirroredFacts()
            #expect(before.count == 450)
            #expect(try Self.schemaVersion(harness.storePath) == 1)
            #expect(try Self.backups(of: harness.storePath).isEmpty)

            let store = try MirrorStore(path: harness.storePath)
            let upgrade = try #require(store.upgraded)
            #expect(upgrade.fromVersion == 1 && upgrade.toVersion == Schema.migrator.latestVersion)
            #expect(upgrade.backupPath.hasPrefix(harness.storePath + ".backup-v1-"))
            #expect(try Self.backups(of: harness.storePath) == [upgrade.backupPath])

            // The backup is the version-1 store, whole.
            #expect(try Self.schemaVersion(upgrade.backupPath) == 1)
            #expect(try StoreInspection(upgrade.backupPath).mirroredFacts() == before)
            #expect(try StoreInspection(upgrade.backupPath).integrity() == "ok")

            // The upgraded store holds the same commits, and the new structures cover them.
            #expect(try Self.schemaVersion(harness.storePath) == Schema.migrator.latestVersion)
            #expect(try harness.store.mirroredFacts() == before)
            try store.db.execute("INSERT INTO commits_fts (commits_fts) VALUES ('integrity-check')")
            #expect(try store.db.scalarInt("SELECT sum(commits) FROM author_commit_counts") == 450)
            #expect(try store.db.scalarInt("SELECT v FROM commits_fts_config WHERE k = 'automerge'") == 16)

            // Opening an up-to-date store makes no backup; syncing it works as ever.
            #expect(try MirrorStore(path: harness.storePath).upgraded == nil)
            let report = try await harness.sync("acme/widgets")
            #expect(report.added == 0 && report.complete)
            #expect(try Self.backups(of: harness.storePath).count == 1)
        }
    }

    @Test func aFailedUpgradeRollsBackEveryStepAndNamesTheBackup() async throws {
        try await withRunning(SimulatorHarness.start([Self.repository])) { harness in
            try await Self.makeVersion1Store(harness)
            let before = try harness.store.mirroredFacts()
            let schemaBefore = try Self.schema(harness.storePath)

            // Every real migration, then one that fails halfway: all of it must roll back.
            let broken = Migrator(
                Schema.migrator.migrations + [
                    .init(
                        version: Schema.migrator.latestVersion + 1, name: "broken",
                        sql: "CREATE TABLE half_done (x INTEGER); INSERT INTO no_such_table VALUES (1);")
                ])
            let error = #expect(throws: StoreError.self) {
                _ = try MirrorStore(path: harness.storePath, migrator: broken)
            }
            let backup = try #require(try Self.backups(of: harness.storePath).first)
            let message = error.map { "\($0)" } ?? ""
            #expect(
                message.contains("upgrading the store \(harness.storePath) from schema version 1 to \(broken.latestVersion) failed"),
                "\(message)")
            #expect(message.contains("no such table: no_such_table"))
            #expect(message.contains("rolled back and the store left as it was"))
            #expect(message.hasSuffix("a copy made before the upgrade is at \(backup)"), "\(message)")

            #expect(try Self.schemaVersion(harness.storePath) == 1)
            #expect(try Self.schema(harness.storePath) == schemaBefore, "migration 2 must be rolled back too")
            #expect(try harness.store.mirroredFacts() == before)
            #expect(try harness.store.integrity() == "ok")
            #expect(try StoreInspection(backup).mirroredFacts() == before)

            // The program that knows the real schema upgrades it afterwards.
            #expect(try MirrorStore(path: harness.storePath).upgraded?.fromVersion == 1)
            #expect(try harness.store.mirroredFacts() == before)
        }
    }

    @Test func aBackupThatCannotBeWrittenStopsTheUpgradeBeforeItStarts() async throws {
        try await withRunning(SimulatorHarness.start([Self.repository])) { harness in
            try await Self.makeVersion1Store(harness)
            let schemaBefore = try Self.schema(harness.storePath)
            let now = Date(timeIntervalSince1970: 1_700_000_000)
            let target = MirrorStore.backupPath(for: harness.storePath, version: 1, date: now)
            // A directory where the copy would be written: SQLite cannot create a file there.
            try FileManager.default.createDirectory(atPath: "\(target).partial-\(getpid())", withIntermediateDirectories: false)

            let db = try Connection(path: harness.storePath)
            let error = #expect(throws: StoreError.self) {
                _ = try MirrorStore.upgrade(db, path: harness.storePath, migrator: Schema.migrator, now: now)
            }
            let message = error.map { "\($0)" } ?? ""
            #expect(
                message.hasPrefix(
                    "cannot upgrade the store \(harness.storePath): the backup copy \(target) it needs first could not be written"),
                "\(message)")
            #expect(message.contains("The store was left untouched"))
            #expect(!FileManager.default.fileExists(atPath: target))
            #expect(try Self.schemaVersion(harness.storePath) == 1)
            #expect(try Self.schema(harness.storePath) == schemaBefore)
        }
    }

    @Test func twoConnectionsThatOpenedTheOldStoreMakeOneBackupAndOneUpgrade() async throws {
        try await withRunning(SimulatorHarness.start([Self.repository])) { harness in
            try await Self.makeVersion1Store(harness)
            // Both open before either migrates; the second re-reads the version and finds nothing to do.
            let first = try Connection(path: harness.storePath)
            let second = try Connection(path: harness.storePath)
            let a = try MirrorStore.upgrade(first, path: harness.storePath, migrator: Schema.migrator)
            let b = try MirrorStore.upgrade(second, path: harness.storePath, migrator: Schema.migrator)
            #expect(a != nil && b == nil)
            #expect(try Self.backups(of: harness.storePath).count == 1)
        }
    }
}
