import Foundation
import MirrorPostgreSQL
import MirrorTestSupport
import Testing

@testable import MirrorCore

/// `HistoryRemoval` (prune, purge), in the same suite as the rest of the store
/// contract: each test runs on a SQLite file and on a PostgreSQL database.
extension StoreContractTests {
    static let gadgets = RepositoryIdentity(
        githubID: 4343, fullName: RepositoryName(owner: "acme", name: "gadgets"), defaultBranch: "main", htmlURL: nil)

    /// Stores `commits` as one page of a walk from `head` on `main` of `identity`.
    static func mirror(_ store: StoreUnderTest, _ identity: RepositoryIdentity, head: Int, _ commits: [Commit]) async throws
        -> Int64
    {
        let repository = try store.writer.adopt(identity, requestedAs: identity.fullName)
        try store.writer.recordAttempt(repositoryID: repository.id, branch: "main")
        let walk = try store.writer.beginWalk(repositoryID: repository.id, branch: "main", headSHA: PayloadFixtures.sha(head))
        _ = try await store.writer.withBatches(limits: BatchLimits()) { batches in
            try batches.store(page: commits, repositoryID: repository.id, walk: walk, nextURL: nil, pagesTotal: nil)
        }
        return repository.id
    }

    /// The per-author counts the triggers keep agree with the commits stored.
    static func expectAuthorCountsAgree(_ store: StoreUnderTest, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let counted = try store.committed(
            "SELECT author_id, count(*) FROM commits GROUP BY author_id ORDER BY author_id")
        let kept = try store.committed(
            "SELECT author_id, commits FROM author_commit_counts WHERE commits > 0 ORDER BY author_id")
        #expect(kept == counted, sourceLocation: sourceLocation)
    }

    @Test(arguments: Backend.allCases)
    func pruneDeletesOnlyWhatNoRepositoryHoldsOnABranch(backend: Backend) async throws {
        let store = try await StoreUnderTest(backend)
        // widgets: 3 → 2 → 1, and 5 → 4 → 1 that a force-push leaves behind; gadgets holds 4 on its branch.
        let widgets = try await Self.mirror(
            store, StoreFixtures.identity, head: 3,
            [
                StoreFixtures.commit(5, parents: [4]), StoreFixtures.commit(3, parents: [2]),
                StoreFixtures.commit(4, parents: [1], author: "Lin"),
                StoreFixtures.commit(2, parents: [1]), StoreFixtures.commit(1, parents: []),
            ])
        let gadgets = try await Self.mirror(
            store, Self.gadgets, head: 4, [StoreFixtures.commit(4, parents: [1], author: "Lin"), StoreFixtures.commit(1, parents: [])])
        #expect(try store.writer.markOffBranch(repositoryID: widgets, heads: [PayloadFixtures.sha(3)]).leftBranch == 2)
        #expect(try store.writer.offBranchCount(repositoryID: widgets) == 2)
        #expect(try store.writer.offBranchCount(repositoryID: gadgets) == 0)
        #expect(try store.writer.offBranchCount(repositoryID: nil) == 2)

        #expect(try store.writer.pruneOffBranch(repositoryID: gadgets) == 0, "gadgets has nothing off its branch")
        #expect(try store.committedCount("SELECT count(*) FROM commits") == 5)
        #expect(try store.writer.pruneOffBranch(repositoryID: widgets) == 2)
        // 5 is gone with its parents; 4 left widgets but gadgets still holds it.
        #expect(
            try store.committed("SELECT sha FROM commits ORDER BY sha") == [1, 2, 3, 4].map(PayloadFixtures.sha).sorted().map { [$0] })
        #expect(try store.committedCount("SELECT count(*) FROM commit_parents WHERE parent_sha = $1", [PayloadFixtures.sha(4)]) == 0)
        #expect(try store.writer.commitCount(repositoryID: widgets) == 3)
        #expect(try store.writer.commitCount(repositoryID: gadgets) == 2)
        #expect(try store.writer.offBranchCount(repositoryID: nil) == 0)
        #expect(try store.writer.pruneOffBranch(repositoryID: nil) == 0, "a second prune finds nothing")
        try Self.expectAuthorCountsAgree(store)
    }

    @Test(arguments: Backend.allCases)
    func purgeRemovesTheRepositoryAndDeletesWhatOnlyItHeld(backend: Backend) async throws {
        let store = try await StoreUnderTest(backend)
        let widgets = try await Self.mirror(
            store, StoreFixtures.identity, head: 3,
            [
                StoreFixtures.commit(3, parents: [2], message: "three\n\nCo-authored-by: Lin <lin@example.com>"),
                StoreFixtures.commit(2, parents: [1]), StoreFixtures.commit(1, parents: []),
            ])
        // gadgets holds 2 and 1 too, but a rewrite left 2 off its branch: on a branch only in widgets.
        let gadgets = try await Self.mirror(
            store, Self.gadgets, head: 2, [StoreFixtures.commit(2, parents: [1]), StoreFixtures.commit(1, parents: [])])
        _ = try store.writer.markOffBranch(repositoryID: gadgets, heads: [PayloadFixtures.sha(1)])
        #expect(try store.committed("SELECT sha FROM commits WHERE off_branch").isEmpty)

        let at = Date(timeIntervalSince1970: 1_760_000_000)
        let purged = try store.writer.removeAndPurge(repositoryID: widgets, reason: "removed by the user", at: at)
        #expect(purged == PurgeOutcome(deleted: 1, shared: 2))
        #expect(try store.committed("SELECT sha FROM commits ORDER BY sha") == [1, 2].map(PayloadFixtures.sha).sorted().map { [$0] })
        #expect(try store.committed("SELECT sha FROM commits WHERE off_branch") == [[PayloadFixtures.sha(2)]])
        #expect(try store.committedCount("SELECT count(*) FROM commit_coauthors") == 0, "3's co-author went with it")
        #expect(try store.writer.commitCount(repositoryID: widgets) == 0)
        #expect(try store.writer.commitCount(repositoryID: gadgets) == 2)
        #expect(try store.writer.repositoryState(repositoryID: widgets) == .removed)
        #expect(
            try store.committed("SELECT state_reason, state_changed_at FROM repositories WHERE github_id = 4242")
                == [["removed by the user", ISO8601Timestamp.format(at)]])
        #expect(try store.writer.syncState(repositoryID: widgets, branch: "main") == nil)
        #expect(try store.writer.pendingWalks(repositoryID: widgets, branch: "main").isEmpty)
        #expect(try store.writer.syncState(repositoryID: gadgets, branch: "main") != nil)
        // Its identity stays: found by name, adopted again into the same row when mirrored again.
        #expect(try store.writer.repository(named: StoreFixtures.identity.fullName)?.id == widgets)
        #expect(try store.writer.adopt(StoreFixtures.identity, requestedAs: StoreFixtures.identity.fullName).id == widgets)
        try Self.expectAuthorCountsAgree(store)
    }

    @Test func aDatabaseSafetyCopyGoesToTheCurrentDirectoryNamedForTheDatabase() throws {
        TestStoreDrivers.register()
        let at = Date(timeIntervalSince1970: 1_764_000_000)
        let stamp = ISO8601Timestamp.format(at).filter { $0 != "-" && $0 != ":" }
        let directory = FileManager.default.currentDirectoryPath
        let database = StoreLocation.postgreSQL("postgresql://mirror@db.example:5432/commits_prod?sslmode=verify-full")
        #expect(database.safetyCopyPath(before: "purge", at: at) == "\(directory)/commits_prod.backup-purge-\(stamp).sqlite")
        let file = StoreLocation.sqliteFile("/srv/mirror/commits.sqlite")
        #expect(file.safetyCopyPath(before: "prune", at: at) == "/srv/mirror/commits.sqlite.backup-prune-\(stamp)")
        #expect(StoreLocation.fileNameStem("a/b c") == "a_b_c")
        #expect(StoreLocation.fileNameStem(".hidden") == "_hidden")
    }
}
