import MirrorTestSupport
import Foundation
import GitHubSim
import SQLite
import Testing
@testable import MirrorCore
@testable import MirrorSQLite

/// Issue #6 "storage faults", in process: each gives one clear error and
/// leaves the store as it was. (Commitsctl's StorageFaultCLITests run the same
/// faults through the real binary: a full tmpfs, a read-only directory, a
/// foreign writer.)
@Suite struct StorageFaultTests {
    static let repository = SimRepository.widgets(id: 78, SyntheticSpec(commits: 600, authors: 9, mergeEvery: 4, seed: 11))

    static func bytes(_ path: String) -> Data? { FileManager.default.contents(atPath: path) }

    /// SQLITE_FULL through a size limit (`PRAGMA max_page_count` at the current
    /// size): the page that no longer fits rolls back whole.
    @Test func aFullStoreRollsThePageBackWholeAndSaysSo() async throws {
        try await withRunning(SimulatorHarness.start([Self.repository])) { harness in
            try harness.simulator.moveHead(owner: "acme", name: "widgets", back: 300)
            try await harness.sync("acme/widgets")
            let before = try harness.store.mirroredFacts()
            #expect(before.count == (try harness.simulator.reachableSHAs(owner: "acme", name: "widgets").count))
            try harness.simulator.moveHead(owner: "acme", name: "widgets", forward: 300)
            #expect(try harness.simulator.reachableSHAs(owner: "acme", name: "widgets").count > before.count + 100)

            let store = try MirrorStore(path: harness.storePath)
            let pages = try #require(try store.db.scalarInt("PRAGMA page_count"))
            #expect(try store.db.scalarInt("PRAGMA max_page_count = \(pages)") == pages)
            let engine = SyncEngine(client: try harness.client(), store: store, logger: TestSupport.quietLogger)
            let error = await #expect(throws: StoreError.self) {
                try await engine.sync(RepositoryName(parsing: "acme/widgets")!)
            }
            #expect(
                error.map { "\($0)" }
                    == "the store \(harness.storePath) cannot grow: its disk (or a size limit) is full. The write in progress was rolled back whole, nothing stored before is lost; free some space and run again"
            )
            #expect(try harness.store.mirroredFacts() == before)
            #expect(try harness.store.integrity() == "ok")

            // With room again, the next sync converges.
            try await harness.sync("acme/widgets")
            #expect(try harness.store.memberSHAs(of: "acme/widgets") == harness.simulator.reachableSHAs(owner: "acme", name: "widgets"))
        }
    }

    @Test func aFileThatIsNotSQLiteIsRefusedUntouched() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("commits.sqlite")
        var generator = SystemRandomNumberGenerator()
        let garbage = Data((0..<16_384).map { _ in UInt8.random(in: 0...255, using: &generator) })
        try garbage.write(to: URL(fileURLWithPath: path))
        for side in StoreSide.allCases {
            let error = #expect(throws: StoreError.self) { try side.open(path) }
            #expect(error.map { "\($0)" } == "\(path) is not a commits-mirror store (not an SQLite database)")
        }
        #expect(Self.bytes(path) == garbage)
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
    }

    @Test func anotherProgramsSQLiteDatabaseIsRefusedUntouched() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("notes.sqlite")
        try ForeignDatabase.create(
            at: path, "CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT); INSERT INTO notes (text) VALUES ('keep me');")
        let before = try #require(Self.bytes(path))
        for side in StoreSide.allCases {
            let error = #expect(throws: StoreError.self) { try side.open(path) }
            #expect(
                error.map { "\($0)" }
                    == "\(path) is an SQLite database of some other program (it has tables but no commits-mirror schema); it was left untouched"
            )
        }
        #expect(Self.bytes(path) == before, "not even switched to WAL")
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
    }

    @Test func aStoreFromANewerSchemaIsRefusedUntouched() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("commits.sqlite")
        do {
            let store = try MirrorStore(path: path)
            try store.db.execute("INSERT INTO schema_migrations (version, name) VALUES (99, 'from the future')")
            try store.db.close()
        }
        let before = try #require(Self.bytes(path))
        for side in StoreSide.allCases {
            let error = #expect(throws: StoreError.self) { try side.open(path) }
            #expect(
                error.map { "\($0)" }
                    == "the store \(path) has schema version 99, newer than this program knows (\(Schema.migrator.latestVersion)); upgrade commits-mirror. The store was left untouched"
            )
        }
        #expect(Self.bytes(path) == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path).filter { $0.contains(".backup-") }.isEmpty)
    }
}
