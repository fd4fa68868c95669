import MirrorTestSupport
import Foundation
import SQLite
import Testing
@testable import MirrorCore
@testable import MirrorSQLite

/// Issue #26: `query --follow` waits on the store's change cursor (a commit
/// joining a repository), not on commit row ids. A real `commitsctl query
/// --follow` process reads a real store file that this process writes.
@Suite struct FollowCursorTests {
    static let widgets = RepositoryName(parsing: "acme/widgets")!
    static let fork = RepositoryName(parsing: "acme/fork")!

    /// Commit `n` (10...99): sha `nnnn…`, one second after commit n - 1, its parent.
    static func commit(_ n: Int) -> MirrorCore.Commit {
        let sha = { (n: Int) in String(repeating: String(n), count: 20) }
        let spec = QueryCLIFixture.Commit(
            sha: sha(n), message: "Commit \(n)", author: QueryCLIFixture.ada, committer: nil,
            date: ISO8601Timestamp.format(Date(timeIntervalSince1970: 1_710_000_000 + Double(n))),
            parents: n > 10 ? [sha(n - 1)] : [], repositories: [])
        return MirrorCore.Commit(QueryCLIFixture.payload(spec))
    }

    /// The short shas a `oneline` output starts its lines with.
    static func short(_ numbers: [Int]) -> [String] { numbers.map { String(String(repeating: String($0), count: 4).prefix(7)) } }

    static func store(_ store: MirrorStore, _ numbers: [Int], in repository: RepositoryName) throws {
        let id = try store.ensureRepository(named: repository).id
        try store.db.transaction { _ = try store.upsert(numbers.map(commit), repositoryID: id) }
    }

    /// A follower of `arguments`: its printed short shas once it printed `count` lines (or at the deadline).
    final class Follower {
        let process: ChildProcess
        let collector = FollowTests.LineCollector()

        init(_ arguments: [String]) throws {
            process = try ChildProcess(
                product: "commitsctl", ["query", "--follow", "--format", "oneline"] + arguments,
                environment: ["TZ": "UTC"], stdout: .pipe)
            let collector = self.collector
            process.output!.readabilityHandler = { collector.append($0.availableData) }
        }

        func shas(count: Int, within seconds: TimeInterval = 5) async -> [String] {
            await collector.lines(count: count, until: Date().addingTimeInterval(seconds)).map { String($0.prefix(7)) }
        }

        deinit { process.kill() }
    }

    @Test func aStoredCommitThatJoinsTheFollowedRepositoryIsPrinted() async throws {
        let directory = try TemporaryDirectory()
        let db = directory.path("commits.sqlite")
        let writer = try MirrorStore(path: db)
        try Self.store(writer, [12, 11, 10], in: Self.widgets)
        try Self.store(writer, [10], in: Self.fork)

        let follower = try Follower(["--repo", "acme/fork", "--db", db])
        #expect(await follower.shas(count: 1) == Self.short([10]))
        // 11 was stored for acme/widgets before the follower started: it keeps
        // its row, and joins acme/fork now. 13 is new, the last to arrive.
        try Self.store(writer, [11], in: Self.fork)
        try Self.store(writer, [13], in: Self.fork)
        #expect(await follower.shas(count: 3).dropFirst(1) == Self.short([11, 13])[...])
    }

    @Test func aCommitStoredAfterPruneDeletedTheNewestRowIsPrinted() async throws {
        let directory = try TemporaryDirectory()
        let db = directory.path("commits.sqlite")
        let writer = try MirrorStore(path: db)
        // Stored one at a time, so 11 (the branch's head) is the newest row.
        try Self.store(writer, [10], in: Self.widgets)
        try Self.store(writer, [11], in: Self.widgets)
        let follower = try Follower(["--db", db])
        #expect(await follower.shas(count: 2) == Self.short([11, 10]))

        // A force-push leaves 11 (the newest row) off the branch; prune deletes it.
        let widgets = try writer.ensureRepository(named: Self.widgets).id
        _ = try writer.markOffBranch(repositoryID: widgets, heads: [Self.commit(10).sha])
        let prune = try await commitsctl(["prune", "--db", db])
        #expect(prune.status == 0, "\(prune.stderr)")
        #expect(try writer.db.scalarInt("SELECT count(*) FROM commits") == 1)
        // SQLite may give the next row the deleted row's id: it still arrives.
        try Self.store(writer, [12], in: Self.widgets)
        try Self.store(writer, [13], in: Self.widgets)
        #expect(await follower.shas(count: 4).dropFirst(2) == Self.short([12, 13])[...])
    }

    @Test func aStoreMigratedFromTheLastSchemaVersionFollowsCorrectly() async throws {
        let directory = try TemporaryDirectory()
        let db = directory.path("commits.sqlite")
        // The data of a current store, copied into one of the schema before the change cursor.
        let current = directory.path("current.sqlite")
        do {
            let writer = try MirrorStore(path: current)
            try Self.store(writer, [13, 12, 11, 10], in: Self.widgets)
            try Self.store(writer, [11, 10], in: Self.fork)
        }
        let previous = Migrator(Array(Schema.migrator.migrations.prefix { $0.version <= 7 }))
        do {
            let old = try MirrorStore(path: db, migrator: previous)
            try OlderStore.copyVersion1Data(from: current, into: old.db)
            // What versions 2 and 3 added that repositories are found by and queries search.
            try old.db.execute("INSERT INTO repository_names (name, repository_id) SELECT full_name, id FROM repositories")
            try old.db.execute("INSERT INTO commits_fts (commits_fts) VALUES ('rebuild')")
        }
        #expect(try Schema.migrator.appliedVersion(in: Connection(path: db, mode: .readOnly)) == 7)

        let writer = try MirrorStore(path: db)
        #expect(writer.upgraded?.fromVersion == 7)
        // The memberships stored before are numbered 1...n in the order their commits were stored.
        let numbered = try writer.db.prepare("SELECT commit_id, repository_id, change_seq FROM repository_commits ORDER BY change_seq")
            .map { [$0.int64(0), $0.int64(1), $0.int64(2)] }
        #expect(numbered.map { $0[2] } == Array(1...6))
        #expect(numbered.map { [$0[0], $0[1]] } == numbered.map { [$0[0], $0[1]] }.sorted { ($0[0], $0[1]) < ($1[0], $1[1]) })
        #expect(try writer.db.scalarInt("SELECT last FROM change_counter") == 6)
        let follower = try Follower(["--repo", "acme/fork", "--db", db])
        #expect(await follower.shas(count: 2) == Self.short([11, 10]))
        let all = try Follower(["--db", db])
        #expect(await all.shas(count: 4) == Self.short([13, 12, 11, 10]))
        // 12 joins the fork (stored before the upgrade), then 14 is new in both.
        try Self.store(writer, [12], in: Self.fork)
        try Self.store(writer, [14], in: Self.fork)
        try Self.store(writer, [14], in: Self.widgets)
        #expect(await follower.shas(count: 4).dropFirst(2) == Self.short([12, 14])[...])
        // Without --repo, a commit already listed is not printed again when it joins a fork.
        #expect(await all.shas(count: 5).dropFirst(4) == Self.short([14])[...])
        try Self.store(writer, [15], in: Self.widgets)
        #expect(await all.shas(count: 6).dropFirst(4) == Self.short([14, 15])[...])
    }

    /// A commit a rewrite left off the branch that a branch reaches again re-enters
    /// the query's result: it arrives (docs/QUERY.md, `--follow`).
    @Test func aCommitABranchReachesAgainIsPrintedAsAnArrival() async throws {
        let directory = try TemporaryDirectory()
        let db = directory.path("commits.sqlite")
        let writer = try MirrorStore(path: db)
        try Self.store(writer, [11, 10], in: Self.widgets)
        let widgets = try writer.ensureRepository(named: Self.widgets).id
        _ = try writer.markOffBranch(repositoryID: widgets, heads: [Self.commit(10).sha])
        let follower = try Follower(["--repo", "acme/widgets", "--db", db])
        #expect(await follower.shas(count: 1) == Self.short([10]))

        let marks = try writer.markOffBranch(repositoryID: widgets, heads: [Self.commit(11).sha])
        #expect(marks.returned == 1)
        try Self.store(writer, [12], in: Self.widgets)
        #expect(await follower.shas(count: 3).dropFirst(1) == Self.short([11, 12])[...])
    }
}
