import Foundation
import MirrorTestSupport
import SQLite
import Testing

@testable import MirrorCore
@testable import MirrorSQLite

/// Issue #30, goals 1 and 2: a bulk load (a first sync) returns without
/// indexing its messages, up to a bound; `--grep` stays exact meanwhile, and
/// the next writer to open the store catches the index up.
@Suite struct MessageIndexBulkLoadTests {
    /// Needles of `PostgreSQLBulkPageTablesTests.commits`, in other cases.
    static let needles = ["FIX", "überprüfung", "ß", "日本語", "CRASH IN"]

    /// What every needle finds, by every access path, with and without a limit.
    static func answers(_ path: String) throws -> [String: [String: [String]]] {
        var answers: [String: [String: [String]]] = [:]
        for needle in needles { answers[needle] = try MessageIndexLagTests.answers(CommitFilter(grep: needle), in: path) }
        return answers
    }

    /// Every access path finds exactly the commits whose messages hold the needle
    /// (the limits take the newest of them).
    static func expectExact(_ path: String, _ commits: [Commit]) throws {
        for needle in ["FIX", "CRASH IN"] {
            let expected = PostgreSQLBulkPageTablesTests.expected(commits, grep: needle)
            #expect(!expected.isEmpty)
            for (path, shas) in try MessageIndexLagTests.answers(CommitFilter(grep: needle), in: path) {
                if path.hasSuffix(" 0") { #expect(Set(shas) == expected, "\(needle) \(path)") }
                #expect(Set(shas).isSubset(of: expected), "\(needle) \(path)")
            }
        }
    }

    /// A new store's first load of `count` commits in batches of 100 (its size
    /// unannounced, as a first listing's: a load announced small is not bulk), with
    /// `lag` as its bulk loads' lag; `afterEachBatch` runs once each is stored.
    static func firstLoad(
        _ count: Int, lag: Range<Int>, in directory: TemporaryDirectory,
        afterEachBatch: (any PageBatches, MirrorStore) throws -> Void = { _, _ in }
    ) async throws -> (path: String, writer: MirrorStore, repositoryID: Int64, commits: [Commit]) {
        let (path, writer, repositoryID) = try SQLiteBulkLoadIndexesTests.newStore(directory)
        writer.bulkLoadMessageIndexLag = lag
        let commits = SQLiteBulkLoadIndexesTests.commits(count)
        _ = try await writer.withBatches(limits: BatchLimits(maximumCommits: 100)) { batches in
            for start in stride(from: 0, to: count, by: 100) {
                _ = try batches.storeFromGit(Array(commits[start..<min(start + 100, count)]), repositoryID: repositoryID)
                try afterEachBatch(batches, writer)
            }
        }
        return (path, writer, repositoryID, commits)
    }

    @Test func aFirstLoadLeavesTheIndexBehindAndALaterSyncCatchesUp() async throws {
        let directory = try TemporaryDirectory()
        let (path, writer, repositoryID, commits) = try await Self.firstLoad(600, lag: 500..<10_000, in: directory)
        #expect(try writer.messageIndexLag() == 600)
        #expect(try MirrorReader(path: path).check().unindexedMessages == 0)
        try Self.expectExact(path, commits)

        // A later sync's scope, not a bulk load: it returns with the index whole.
        let more = (600..<610).map { StoreFixtures.commit($0, parents: [$0 - 1], message: "fix \($0)") }
        _ = try await writer.withBatches(limits: BatchLimits(maximumCommits: 200, expectedCommits: 10)) { batches in
            _ = try batches.storeFromGit(more, repositoryID: repositoryID)
        }
        #expect(try writer.messageIndexLag() == 0)
        try Self.expectExact(path, commits + more)
        try writer.db.execute("INSERT INTO commits_fts (commits_fts, rank) VALUES ('integrity-check', 1)")
    }

    @Test func theNextWriterToOpenTheStoreCatchesUp() async throws {
        let directory = try TemporaryDirectory()
        let (path, writer, _, _) = try await Self.firstLoad(300, lag: 300..<10_000, in: directory)
        #expect(try writer.messageIndexLag() == 300)
        let lagging = try Self.answers(path)
        let reopened = try MirrorStore(path: path)
        #expect(try reopened.messageIndexLag() == 0)
        #expect(try Self.answers(path) == lagging)
        try reopened.db.execute("INSERT INTO commits_fts (commits_fts, rank) VALUES ('integrity-check', 1)")
    }

    /// A load that leaves less than the range's start is indexed before it returns: it costs little.
    @Test func aSmallFirstLoadReturnsWithTheIndexWhole() async throws {
        let directory = try TemporaryDirectory()
        let (path, writer, _, commits) = try await Self.firstLoad(300, lag: 301..<10_000, in: directory)
        #expect(try writer.messageIndexLag() == 0)
        try Self.expectExact(path, commits)
    }

    /// The bound: once a bulk load's lag reaches it, a committed batch catches
    /// the index up, so a search never reads more than that many unindexed messages.
    @Test func aBulkLoadCatchesUpOnceItsLagReachesTheBound() async throws {
        let directory = try TemporaryDirectory()
        var lags: [Int] = []
        let (path, writer, _, _) = try await Self.firstLoad(700, lag: 100..<250, in: directory) { batches, writer in
            try batches.commit()
            lags.append(try writer.messageIndexLag())
        }
        #expect(lags == [100, 200, 0, 100, 200, 0, 100])
        #expect(try writer.messageIndexLag() == 100)
        _ = try MirrorStore(path: path)
        #expect(try writer.messageIndexLag() == 0)
    }

    /// A new store's first REST listing of 3,000 commits, pages of 100 newest
    /// first announcing 30 pages, in batches of five pages, with `lag` as its bulk
    /// loads' lag: the message index's lag after each committed batch, and after the scope.
    static func listingLags(lag: Range<Int>, in directory: TemporaryDirectory) async throws -> (batches: [Int], after: Int) {
        let (path, writer, repositoryID) = try SQLiteBulkLoadIndexesTests.newStore(directory)
        writer.bulkLoadMessageIndexLag = lag
        let commits = SQLiteBulkLoadIndexesTests.commits(3_000)
        try writer.recordAttempt(repositoryID: repositoryID, branch: "main")
        var walk = try writer.beginWalk(repositoryID: repositoryID, branch: "main", headSHA: commits[2_999].sha)
        var lags: [Int] = []
        try await writer.withBatches(limits: BatchLimits(maximumPages: 5)) { batches in
            for end in stride(from: 3_000, to: 0, by: -100) {
                let page = Array(commits[(end - 100)..<end].reversed())
                walk = try batches.store(
                    page: page, repositoryID: repositoryID, walk: walk, nextURL: end > 100 ? "https://api.github.com/next" : nil,
                    pagesTotal: end > 100 ? 30 : nil
                ).checkpoint
                if !batches.isOpen { lags.append(try writer.messageIndexLag()) }
            }
        }
        try Self.expectExact(path, commits)
        return (lags, try writer.messageIndexLag())
    }

    /// A listing announcing fewer commits than a load leaves unindexed: its batches
    /// index their messages as they commit, once a thousand wait
    /// (`MirrorStore.messagesIndexedWithABatch`), instead of after its last page.
    @Test func aSmallListingIndexesItsMessagesWithItsBatches() async throws {
        let directory = try TemporaryDirectory()
        let lags = try await Self.listingLags(lag: 3_001..<10_000, in: directory)
        #expect(lags.batches == [500, 0, 500, 0, 500, 0])
        #expect(lags.after == 0)
    }

    /// One announcing more leaves its index behind as any bulk load does.
    @Test func aLargeListingLeavesItsMessagesToTheWatermark() async throws {
        let directory = try TemporaryDirectory()
        let lags = try await Self.listingLags(lag: 3_000..<10_000, in: directory)
        #expect(lags.batches == [500, 1_000, 1_500, 2_000, 2_500, 3_000])
        #expect(lags.after == 3_000)
    }
}
