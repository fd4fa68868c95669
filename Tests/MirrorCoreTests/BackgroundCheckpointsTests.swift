import Foundation
import MirrorTestSupport
import SQLite
import Testing

@testable import MirrorCore
@testable import MirrorSQLite

/// A sync's batches leave the WAL to a checkpointer of their own
/// (BackgroundCheckpoints): SQLite's checkpointing is off in the scope and back
/// after it, what the scope committed is copied before it returns, and the WAL
/// starts over once it is long instead of growing with the history.
@Suite struct BackgroundCheckpointsTests {
    /// A first load of `count` commits in batches of 100 into a new store whose
    /// WAL starts over every `restartFrames`; the WAL file's size after each batch.
    private func load(_ count: Int, restartFrames: Int, in directory: TemporaryDirectory) async throws
        -> (path: String, writer: MirrorStore, walSizes: [Int])
    {
        let (path, writer, repositoryID) = try SQLiteBulkLoadIndexesTests.newStore(directory)
        writer.walRestartFrames = restartFrames
        let commits = SQLiteBulkLoadIndexesTests.commits(count)
        var walSizes: [Int] = []
        _ = try await writer.withBatches(limits: BatchLimits(maximumCommits: 100)) { batches in
            #expect(try writer.db.pragma("wal_autocheckpoint") == "0")
            for start in stride(from: 0, to: count, by: 100) {
                _ = try batches.storeFromGit(Array(commits[start..<min(start + 100, count)]), repositoryID: repositoryID)
                walSizes.append(Self.size(of: path + "-wal"))
            }
        }
        return (path, writer, walSizes)
    }

    private static func size(of path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int) ?? 0
    }

    @Test func aScopeEndsWithEverythingCopiedAndSQLitesCheckpointingBack() async throws {
        let directory = try TemporaryDirectory()
        let (path, writer, _) = try await load(2_000, restartFrames: BackgroundCheckpoints.defaultRestartFrames, in: directory)
        #expect(try writer.db.pragma("wal_autocheckpoint") == String(MirrorStore.walAutocheckpointPages))
        // The database file alone, without its WAL, holds everything the scope committed.
        let fileAlone = directory.path("file-alone.sqlite")
        try FileManager.default.copyItem(atPath: path, toPath: fileAlone)
        let alone = try Connection(path: fileAlone, mode: .readWrite)
        #expect(try alone.scalarInt("SELECT count(*) FROM commits") == 2_000)
        // Down to what it wrote last: the indexes the load left out, and the message index caught up.
        let schema = "SELECT group_concat(name) FROM (SELECT name FROM sqlite_master ORDER BY name)"
        #expect(try alone.pragma("integrity_check") == "ok")
        #expect(try alone.prepare(schema).first { $0.string(0) } == writer.db.prepare(schema).first { $0.string(0) })
        #expect(try alone.scalarInt("SELECT count(*) FROM commits_fts_idx") == writer.db.scalarInt("SELECT count(*) FROM commits_fts_idx"))
        #expect(try alone.scalarInt("SELECT \(MessageIndexCoverage.watermark)") == 2_000)
        #expect(try !MirrorReader(path: path).check().isDamaged)
    }

    @Test func theWALStartsOverOnceLongInsteadOfGrowingWithTheLoad() async throws {
        // 6,000 commits write some 7 MB of WAL (without restarts the file holds all of it, as
        // it did when the writer never waited). With a restart length of 64 frames (256 KiB)
        // the file stays within that and what the batches write while the checkpointer
        // catches up; 2 MB leaves room for a checkpointer slowed down by a loaded machine.
        let sizes = try await load(6_000, restartFrames: 64, in: try TemporaryDirectory()).walSizes
        #expect(sizes.max()! < 2_000_000, "\(sizes)")
    }
}
