import MirrorTestSupport
import Foundation
import SQLite
import Testing
@testable import MirrorCore
@testable import MirrorSQLite

/// Issue #30 goal 2: `--grep` is exact at every moment, whether the message
/// index covers every stored commit or lags behind them (it catches up in
/// chunks after the rows are stored).
@Suite struct MessageIndexLagTests {
    static let trickyMessages = [
        "\u{212A}elvin sign", "ſki with long s", "plain ski", "École", "école", "ÉCOLE", "STRASSE", "Straße",
        "ǅemal", "ǄEMAL", "ǆa", "İstanbul FİX", "fix", "FIX", "nothing", "\u{1}x\u{2}", "a * star", "[bracket]",
        "question?", "→ arrow", "don’t", "“quoted”", "🎉 party", "50% off_", "back\\slash",
    ]

    /// The same messages stored twice: once indexed, once with the index stopped
    /// halfway (and once with nothing indexed). Every needle, every access path,
    /// with and without a limit, gives the same commits in the same order.
    @Test(arguments: [
        "k", "K", "sk", "ski", "KELVIN", "é", "ÉC", "école", "ß", "SS", "straße", "ǅ", "ǆa", "fix", "İ", "x", "*", "a * s",
        "[bracket]", "?", "→", "→ ARROW", "DON’T", "“QUOTED”", "🎉", "50%", "off_", "\\", "ǅEM",
    ])
    func lagDoesNotChangeAnAnswer(needle: String) throws {
        let directory = try TemporaryDirectory()
        let payloads = Self.trickyMessages.enumerated().map { index, message in
            QueryFixtures.payload(
                sha: QueryFixtures.sha(index + 1), message: message,
                date: ISO8601Timestamp.format(Date(timeIntervalSince1970: Double(index) * 3600)))
        }
        let indexed = try MirrorStore(path: directory.path("indexed.sqlite"))
        try QueryFixtures.fill(indexed, payloads, repository: "o/r")
        let halfway = try MirrorStore(path: directory.path("halfway.sqlite"))
        try QueryFixtures.fill(halfway, Array(payloads.prefix(12)), repository: "o/r")
        try QueryFixtures.fill(halfway, Array(payloads.dropFirst(12)), repository: "o/r", indexingMessages: false)
        let unindexed = try MirrorStore(path: directory.path("unindexed.sqlite"))
        try QueryFixtures.fill(unindexed, payloads, repository: "o/r", indexingMessages: false)
        #expect(try indexed.messageIndexLag() == 0)
        #expect(try halfway.messageIndexLag() == payloads.count - 12)
        #expect(try unindexed.messageIndexLag() == payloads.count)

        for filter in Self.filters(needle) {
            let reference = try Self.answers(filter, in: indexed.path)
            #expect(try Self.answers(filter, in: halfway.path) == reference, "\(filter.greps) halfway")
            #expect(try Self.answers(filter, in: unindexed.path) == reference, "\(filter.greps) unindexed")
        }
    }

    /// The needle alone, inverted, ANDed and ORed with another one.
    static func filters(_ needle: String) -> [CommitFilter] {
        var inverted = CommitFilter(grep: needle)
        inverted.invertGrep = true
        var both = CommitFilter(grep: needle)
        both.greps.append("s")
        both.allMatch = true
        var either = CommitFilter(grep: needle)
        either.greps.append("école")
        return [CommitFilter(grep: needle), inverted, both, either]
    }

    /// The shas found by every strategy, with no limit and with limits of 1 and 3.
    static func answers(_ filter: CommitFilter, in path: String) throws -> [String: [String]] {
        var answers: [String: [String]] = [:]
        let reader = try MirrorReader(path: path)
        for strategy in QueryStrategy.allCases {
            for limit in [nil, 1, 3] as [Int?] {
                var limited = filter
                limited.limit = limit
                var shas: [String] = []
                try reader.forEachCommit(matching: limited, strategy: strategy) { shas.append($0.sha) }
                answers["\(strategy) \(limit ?? 0)"] = shas
            }
        }
        return answers
    }

    /// The index covers exactly the commits up to its watermark, whichever way
    /// a commit changes: inserted under the watermark (the id of a deleted
    /// newest row again), updated or deleted on either side of it.
    @Test func theIndexHoldsExactlyTheCommitsUpToItsWatermark() throws {
        let directory = try TemporaryDirectory()
        let store = try MirrorStore(path: directory.path("commits.sqlite"))
        func payload(_ n: Int, _ message: String) -> CommitPayload {
            QueryFixtures.payload(sha: QueryFixtures.sha(n), message: message, date: "2024-01-0\(n)T12:00:00Z")
        }
        try QueryFixtures.fill(store, [payload(1, "one alpha"), payload(2, "two alpha")], repository: "o/r")
        try QueryFixtures.fill(store, [payload(3, "three alpha"), payload(4, "four alpha")], repository: "o/r", indexingMessages: false)
        #expect(try store.messageIndexLag() == 2)
        // Changes on both sides of the watermark.
        try QueryFixtures.fill(store, [payload(2, "two beta"), payload(4, "four beta")], repository: "o/r", indexingMessages: false)
        try store.db.execute("DELETE FROM commits WHERE sha = ?", [QueryFixtures.sha(1)])
        try store.db.execute("DELETE FROM commits WHERE sha = ?", [QueryFixtures.sha(3)])
        func found(_ needle: String) throws -> Set<String> {
            Set(try MirrorReader(path: store.path).commits(matching: CommitFilter(grep: needle)).map(\.message))
        }
        #expect(try found("alpha").isEmpty)
        #expect(try found("beta") == ["two beta", "four beta"])
        #expect(try Self.indexedIDs(store) == [2])
        try store.catchUpMessageIndex()
        #expect(try Self.indexedIDs(store) == [2, 4])
        // SQLite gives a new row the id after the newest one left: 3, under the watermark (4), indexed at once.
        try store.db.execute("DELETE FROM commits WHERE sha = ?", [QueryFixtures.sha(4)])
        try QueryFixtures.fill(store, [payload(5, "five gamma")], repository: "o/r", indexingMessages: false)
        #expect(try store.db.scalarInt("SELECT id FROM commits WHERE sha = ?", [QueryFixtures.sha(5)]) == 3)
        #expect(try store.db.scalarInt("SELECT through_id FROM message_index_coverage") == 4)
        #expect(try store.messageIndexLag() == 0)
        #expect(try found("gamma") == ["five gamma"])
        try store.db.execute("INSERT INTO commits_fts (commits_fts, rank) VALUES ('integrity-check', 1)")
        #expect(try MirrorReader(path: store.path).check().unindexedMessages == 0)
    }

    static func indexedIDs(_ store: MirrorStore) throws -> [Int64] {
        try store.db.prepare("SELECT id FROM commits_fts_docsize ORDER BY id").map { $0.int64(0) }
    }

    /// Whoever opens the store for writing next resumes a catch-up that did
    /// not happen (a writer killed first), chunk by chunk.
    @Test func theNextWriterResumesFromTheWatermark() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("commits.sqlite")
        let payloads = (1...25).map { n in
            QueryFixtures.payload(sha: QueryFixtures.sha(n), message: "message \(n) delta", date: "2024-01-01T12:00:00Z")
        }
        do {
            let store = try MirrorStore(path: path)
            try QueryFixtures.fill(store, payloads, repository: "o/r", indexingMessages: false)
            #expect(try store.messageIndexLag() == 25)
            #expect(try Self.indexedIDs(store).isEmpty)
        }
        let reopened = try MirrorStore(path: path)
        #expect(try reopened.messageIndexLag() == 0)
        #expect(try Self.indexedIDs(reopened).count == 25)
        try reopened.db.execute("INSERT INTO commits_fts (commits_fts, rank) VALUES ('integrity-check', 1)")
        #expect(try MirrorReader(path: path).commits(matching: CommitFilter(grep: "DELTA")).count == 25)
        // In chunks: the same answer.
        try QueryFixtures.fill(
            reopened,
            (26...50).map { n in
                QueryFixtures.payload(sha: QueryFixtures.sha(n), message: "message \(n) delta", date: "2024-01-01T12:00:00Z")
            }, repository: "o/r", indexingMessages: false)
        #expect(try reopened.catchUpMessageIndex(chunk: 10) == 25)
        #expect(try Self.indexedIDs(reopened).count == 50)
        try reopened.db.execute("INSERT INTO commits_fts (commits_fts, rank) VALUES ('integrity-check', 1)")
    }

    /// With nothing to index, opening a writer takes no write lock: it does not
    /// wait for another writer's open batch.
    @Test func aWriterOpensBesideAnOpenBatchWhenNothingLags() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("commits.sqlite")
        try QueryFixtures.fill(
            try MirrorStore(path: path),
            [QueryFixtures.payload(sha: QueryFixtures.sha(1), message: "one", date: "2024-01-01T12:00:00Z")], repository: "o/r")
        let other = try Connection(path: path)
        try other.execute("BEGIN IMMEDIATE")
        defer { try? other.execute("ROLLBACK") }
        // Taking the lock would fail here, busy, once the busy timeout ran out.
        _ = try MirrorStore(path: path)
    }
}

/// Goal 2 on the real swift-evolution history: with the index covering only
/// its first 3,000 commits, `--grep` answers exactly as on the fully indexed
/// store, for every access path, and as counted from the dataset itself.
@Suite(
    .enabled(if: TestSupport.hasDataset, "../shared/datasets/swift-evolution.commits.jsonl.gz not present: skipping real-data lag tests"))
struct MessageIndexLagDatasetTests {
    static let laggingStorePath: String = {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("lag-tests-\(UUID().uuidString)")
        try! FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let path = directory.appendingPathComponent("swift-evolution.sqlite").path
        let store = try! MirrorStore(path: path)
        let payloads = QueryFixtures.dataset.map { QueryFixtures.payload($0) }
        try! QueryFixtures.fill(store, Array(payloads.prefix(3_000)), repository: "swiftlang/swift-evolution")
        try! QueryFixtures.fill(store, Array(payloads.dropFirst(3_000)), repository: "swiftlang/swift-evolution", indexingMessages: false)
        return path
    }()

    @Test(arguments: [
        "fix", "FIX", "typo", "proposal", "SE-0", "review manager", "Accept", "swift 6", "x", "fi", "é", "→", "–", "—", "…",
        "•", "🎉", "DON’T", "“Introduction”", "’s", "“SPAN”", "‘Lowercased’", "Merge pull request", "\u{200E}", "README.md",
    ])
    func grepIsExactWhileTheIndexLags(needle: String) throws {
        // Read with a bare connection: a writer opened on it would catch the index up.
        let lag = try Connection(path: Self.laggingStorePath).scalarInt(
            "SELECT count(*) FROM commits WHERE id > (SELECT through_id FROM message_index_coverage)")
        #expect(lag == QueryFixtures.dataset.count - 3_000)
        for filter in MessageIndexLagTests.filters(needle) {
            let reference = try MessageIndexLagTests.answers(filter, in: QueryFixtures.datasetStorePath)
            #expect(try MessageIndexLagTests.answers(filter, in: Self.laggingStorePath) == reference, "\(filter.greps)")
        }
        let independent = QueryFixtures.dataset.filter { QueryDatasetTests.messageMatches($0, needle) }.count
        #expect(try MirrorReader(path: Self.laggingStorePath).commits(matching: CommitFilter(grep: needle)).count == independent)
    }
}
