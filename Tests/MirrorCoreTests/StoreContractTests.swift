import Foundation
import MirrorPostgreSQL
import MirrorTestSupport
import PostgreSQL
import SQLite
import Testing

@testable import MirrorCore
@testable import MirrorSQLite

/// The store contract the sync engine relies on (`MirrorWriter`: SyncStore,
/// RepositoryCatalogue, RequestRecords), one suite run against both backends:
/// a SQLite file and a database on a real PostgreSQL server. What a test
/// observes it reads through a second connection, as `commitsctl` would.
@Suite struct StoreContractTests {
    enum Backend: String, CaseIterable, Sendable { case sqlite, postgreSQL }

    /// A store of one backend, and what a second connection sees committed in it.
    final class StoreUnderTest: @unchecked Sendable {
        let writer: any MirrorWriter
        /// Where the store is, for opening a reader of it as the commands do.
        let location: StoreLocation
        private let directory: TemporaryDirectory?
        private let observe: (String, [String]) throws -> [[String?]]

        init(_ backend: Backend) async throws {
            TestStoreDrivers.register()  // both backends are opened by location
            switch backend {
            case .sqlite:
                let directory = try TemporaryDirectory()
                let path = directory.path("commits.sqlite")
                self.directory = directory
                location = StoreLocation.sqliteFile(path)
                writer = try location.openSyncWriter()
                observe = { sql, parameters in
                    let reader = try Connection(path: path, mode: .readOnly)
                    let statement = try reader.prepare(
                        sql.replacingOccurrences(of: "$1", with: "?1").replacingOccurrences(of: "$2", with: "?2"))
                    return try statement.bind(parameters).map { row in
                        (0..<statement.columnCount).map { row.optionalString($0) }
                    }
                }
            case .postgreSQL:
                let uri = try await PostgreSQLServer.shared().createDatabase()
                directory = nil
                location = try StoreLocation(uri)
                writer = try location.openSyncWriter()
                observe = { sql, parameters in
                    try PostgreSQLConnection(uri: uri).execute(sql, parameters).rows
                }
            }
        }

        /// The rows of `sql` (placeholders `$1`, `$2`) as committed, each column as text.
        func committed(_ sql: String, _ parameters: [String] = []) throws -> [[String?]] {
            try observe(sql, parameters)
        }

        func committedCount(_ sql: String, _ parameters: [String] = []) throws -> Int {
            Int(try committed(sql, parameters).first?.first??.description ?? "") ?? -1
        }
    }

    /// A repository with a walk begun at `head`.
    static func walking(_ store: StoreUnderTest, head: Int) throws -> (repositoryID: Int64, walk: Walk) {
        let repository = try store.writer.adopt(StoreFixtures.identity, requestedAs: StoreFixtures.identity.fullName)
        try store.writer.recordAttempt(repositoryID: repository.id, branch: "main")
        let walk = try store.writer.beginWalk(repositoryID: repository.id, branch: "main", headSHA: PayloadFixtures.sha(head))
        return (repository.id, walk)
    }

    @Test(arguments: Backend.allCases)
    func aPageIsStoredOnceWithItsCheckpointAndFrontier(backend: Backend) async throws {
        let store = try await StoreUnderTest(backend)
        let (repositoryID, walk) = try Self.walking(store, head: 5)
        // 5 merges 4 and 9 (9 is not on the page); 3's parent 2 is on the next page.
        let first = [
            StoreFixtures.commit(5, parents: [4, 9]), StoreFixtures.commit(4, parents: [3]), StoreFixtures.commit(3, parents: [2]),
        ]
        let stored = try await store.writer.withBatches(limits: BatchLimits()) { batches in
            try batches.store(page: first, repositoryID: repositoryID, walk: walk, nextURL: "page-2", pagesTotal: 2)
        }
        #expect(stored.outcome.added == 3 && stored.outcome.updated == 0)
        #expect(stored.outcome.frontier == 2, "9 and 2 are missing")
        #expect(stored.checkpoint.nextURL == "page-2" && stored.checkpoint.pagesDone == 1 && stored.checkpoint.pagesTotal == 2)
        #expect(try store.writer.pendingWalks(repositoryID: repositoryID, branch: "main") == [stored.checkpoint])
        // The same commit again, and the rest: counted once, the frontier closes but for 9.
        let second = [StoreFixtures.commit(3, parents: [2]), StoreFixtures.commit(2, parents: [1]), StoreFixtures.commit(1, parents: [])]
        let again = try await store.writer.withBatches(limits: BatchLimits()) { batches in
            try batches.store(page: second, repositoryID: repositoryID, walk: stored.checkpoint, nextURL: nil, pagesTotal: nil)
        }
        #expect(again.outcome.added == 2 && again.outcome.frontier == 1)
        #expect(try store.writer.missingParents(walkID: walk.id, limit: 10) == [PayloadFixtures.sha(9)])
        // A parent already missing, named again off a later page, is missing once.
        let third = [StoreFixtures.commit(8, parents: [9])]
        let once = try await store.writer.withBatches(limits: BatchLimits()) { batches in
            try batches.store(page: third, repositoryID: repositoryID, walk: again.checkpoint, nextURL: nil, pagesTotal: nil)
        }
        #expect(once.outcome.added == 1 && once.outcome.frontier == 1)
        #expect(try store.writer.missingParents(walkID: walk.id, limit: 10) == [PayloadFixtures.sha(9)])
        #expect(try store.writer.commitCount(repositoryID: repositoryID) == 6)
        #expect(try store.committedCount("SELECT count(*) FROM commit_parents") == 6)
        // Each membership has its own change number, in the order the commits came.
        let numbers = try store.committed(
            "SELECT c.sha FROM repository_commits rc JOIN commits c ON c.id = rc.commit_id ORDER BY rc.change_seq")
        #expect(numbers.map { $0[0] } == [5, 4, 3, 2, 1, 8].map(PayloadFixtures.sha))
        // Another branch sees this walk under way (`SyncEngine.completeHistory`) until it ends.
        #expect(try store.writer.hasPendingWalks(repositoryID: repositoryID, otherThan: "topic"))
        #expect(try !store.writer.hasPendingWalks(repositoryID: repositoryID, otherThan: "main"))
        try store.writer.finishWalk(again.checkpoint)
        #expect(try !store.writer.hasPendingWalks(repositoryID: repositoryID, otherThan: "topic"))
    }

    @Test(arguments: Backend.allCases)
    func aChangedCommitIsUpdatedOverRESTButNotOverGit(backend: Backend) async throws {
        let store = try await StoreUnderTest(backend)
        let (repositoryID, walk) = try Self.walking(store, head: 1)
        let original = StoreFixtures.commit(1, parents: [])
        _ = try await store.writer.withBatches(limits: BatchLimits()) { batches in
            try batches.store(page: [original], repositoryID: repositoryID, walk: walk, nextURL: nil, pagesTotal: nil)
        }
        let edited = StoreFixtures.commit(1, parents: [], message: "edited\n\nCo-authored-by: Lin <lin@example.com>")
        let overGit = try await store.writer.withBatches(limits: BatchLimits()) { batches in
            try batches.storeFromGit([edited], repositoryID: repositoryID)
        }
        #expect(overGit == 0)
        #expect(try store.committed("SELECT message FROM commits") == [[original.message]])
        let overREST = try await store.writer.withBatches(limits: BatchLimits()) { batches in
            try batches.store(page: [edited], repositoryID: repositoryID, walk: walk, nextURL: nil, pagesTotal: nil)
        }
        #expect(overREST.outcome.updated == 1 && overREST.outcome.added == 0)
        #expect(try store.committed("SELECT message FROM commits") == [[edited.message]])
        #expect(
            try store.committed("SELECT a.name FROM commit_coauthors ca JOIN authors a ON a.id = ca.author_id") == [["Lin"]])
    }

    @Test(arguments: Backend.allCases)
    func batchesCommitWhenDueAndWhenTheScopeEndsHoweverItEnds(backend: Backend) async throws {
        let store = try await StoreUnderTest(backend)
        let (repositoryID, walk) = try Self.walking(store, head: 1)
        struct Interrupted: Error {}
        await #expect(throws: Interrupted.self) {
            try await store.writer.withBatches(limits: BatchLimits(maximumPages: 2)) { batches in
                var checkpoint = walk
                for n in 1...3 {
                    checkpoint = try batches.store(
                        page: [StoreFixtures.commit(n, parents: [n + 1])], repositoryID: repositoryID, walk: checkpoint,
                        nextURL: "page-\(n + 1)", pagesTotal: nil
                    ).checkpoint
                    if n == 2 {
                        #expect(!batches.isOpen)
                        #expect(try store.committedCount("SELECT count(*) FROM commits") == 2)
                    }
                }
                #expect(batches.isOpen)
                #expect(try store.committedCount("SELECT count(*) FROM commits") == 2, "the third page is not committed yet")
                throw Interrupted()
            }
        }
        // The scope's end committed the third page with its checkpoint.
        #expect(try store.committedCount("SELECT count(*) FROM commits") == 3)
        #expect(try store.committed("SELECT next_url FROM sync_walks") == [["page-4"]])
    }

    @Test(arguments: Backend.allCases)
    func historyMarksKeepCommitsAndNumberThoseThatReturn(backend: Backend) async throws {
        let store = try await StoreUnderTest(backend)
        let (repositoryID, walk) = try Self.walking(store, head: 3)
        // 3 → 2 → 1, and 4 → 1 on a history that was force-pushed away.
        let page = [
            StoreFixtures.commit(3, parents: [2]), StoreFixtures.commit(4, parents: [1]), StoreFixtures.commit(2, parents: [1]),
            StoreFixtures.commit(1, parents: []),
        ]
        _ = try await store.writer.withBatches(limits: BatchLimits()) { batches in
            try batches.store(page: page, repositoryID: repositoryID, walk: walk, nextURL: nil, pagesTotal: nil)
        }
        #expect(try store.writer.isAncestor(PayloadFixtures.sha(1), of: PayloadFixtures.sha(3)))
        #expect(try !store.writer.isAncestor(PayloadFixtures.sha(4), of: PayloadFixtures.sha(3)))
        let marks = try store.writer.markOffBranch(repositoryID: repositoryID, heads: [PayloadFixtures.sha(3)])
        #expect(marks == BranchMarks(leftBranch: 1, returned: 0))
        #expect(try store.writer.hasOffBranchCommits(repositoryID: repositoryID))
        #expect(try store.writer.commitCount(repositoryID: repositoryID) == 4, "nothing is deleted by a mark")
        let before = try store.committedCount("SELECT last FROM change_counter")
        let back = try store.writer.markOffBranch(repositoryID: repositoryID, heads: [PayloadFixtures.sha(4), PayloadFixtures.sha(3)])
        #expect(back == BranchMarks(leftBranch: 0, returned: 1))
        #expect(try store.committedCount("SELECT last FROM change_counter") == before + 1)
        #expect(
            try store.committed(
                "SELECT rc.change_seq FROM repository_commits rc JOIN commits c ON c.id = rc.commit_id WHERE c.sha = $1",
                [
                    PayloadFixtures.sha(4)
                ]) == [[String(before + 1)]])
        #expect(try !store.writer.hasOffBranchCommits(repositoryID: repositoryID))
    }

    @Test(arguments: Backend.allCases)
    func walksAndSyncStateAreKeptPerBranch(backend: Backend) async throws {
        let store = try await StoreUnderTest(backend)
        let (repositoryID, walk) = try Self.walking(store, head: 2)
        let now = Date(timeIntervalSince1970: 1_750_000_000)
        try store.writer.recordSuccess(
            repositoryID: repositoryID, branch: "main", headSHA: PayloadFixtures.sha(2), headETag: "\"etag\"", complete: true,
            rateLimit: nil, at: now)
        try store.writer.recordFailure(repositoryID: repositoryID, branch: "main", message: "boom", rateLimit: nil)
        let state = try #require(try store.writer.syncState(repositoryID: repositoryID, branch: "main"))
        #expect(state.repository == "acme/widgets" && state.headSHA == PayloadFixtures.sha(2) && state.headETag == "\"etag\"")
        #expect(state.complete && state.lastError == "boom" && state.pendingWalks == 1)
        #expect(state.lastSuccessAt == ISO8601Timestamp.format(now))
        try store.writer.finishWalk(walk)
        #expect(try store.writer.pendingWalks(repositoryID: repositoryID, branch: "main").isEmpty)
        try store.writer.recordAttempt(repositoryID: repositoryID, branch: "release")
        try store.writer.forgetBranchNeverSynced(repositoryID: repositoryID, branch: "release")
        #expect(try store.writer.syncState(repositoryID: repositoryID, branch: "release") == nil)
        #expect(try store.writer.otherBranchHeads(repositoryID: repositoryID, excluding: "release") == [PayloadFixtures.sha(2)])
    }

    @Test(arguments: Backend.allCases)
    func aRepositoryIsItsGitHubIDWhateverItIsCalled(backend: Backend) async throws {
        let store = try await StoreUnderTest(backend)
        let first = try store.writer.adopt(StoreFixtures.identity, requestedAs: StoreFixtures.identity.fullName)
        var renamed = StoreFixtures.identity
        renamed.fullName = RepositoryName(owner: "acme", name: "gadgets")
        let again = try store.writer.adopt(renamed, requestedAs: renamed.fullName)
        #expect(again.id == first.id && again.name == renamed.fullName)
        #expect(try store.writer.repository(named: RepositoryName(owner: "ACME", name: "Widgets"))?.id == first.id)
        // Another repository now called by the first's former name: a row of its own.
        let newcomer = RepositoryIdentity(
            githubID: 9999, fullName: StoreFixtures.identity.fullName, defaultBranch: "main", htmlURL: nil)
        let other = try store.writer.adopt(newcomer, requestedAs: newcomer.fullName)
        #expect(other.id != first.id && other.name == newcomer.fullName)
        #expect(try store.writer.namesByGitHubID() == [4242: renamed.fullName, 9999: newcomer.fullName])
        #expect(
            try store.writer.activeRepositories(ownedBy: "acme").map(\.id)
                == [other.id, first.id].sorted { a, b in
                    (a == first.id ? "acme/gadgets" : "acme/widgets") < (b == first.id ? "acme/gadgets" : "acme/widgets")
                })
        try store.writer.setState(.gone, repositoryID: first.id, reason: "GitHub answers 404 for it")
        #expect(try store.writer.repositoryState(repositoryID: first.id) == .gone)
    }

    @Test(arguments: Backend.allCases)
    func ownerListingsAndRequestsSpentAreKept(backend: Backend) async throws {
        let store = try await StoreUnderTest(backend)
        let listing = OwnerListing(
            owner: "acme", kind: .organization,
            pages: [.init(url: "https://api.example/orgs/acme/repos", etag: "\"e1\"", next: nil, repositories: [])])
        let selected = try store.writer.recordListing(listing, selected: [StoreFixtures.identity])
        #expect(selected.count == 1 && selected[0].state == .active && !selected[0].returned)
        #expect(try store.writer.ownerListing(owner: "ACME") == OwnerListing(owner: "ACME", kind: .organization, pages: listing.pages))
        // What daemons following another's listings read, without a writer.
        let reader = try store.location.openCommitReader()
        #expect(try reader.ownerListing(owner: "ACME") == store.writer.ownerListing(owner: "ACME"))
        #expect(try reader.ownerListing(owner: "elsewhere") == nil)
        #expect(try reader.activeRepositories(ownedBy: "ACME").map(\.name) == [StoreFixtures.identity.fullName])
        #expect(try reader.activeRepositories(ownedBy: "ACME") == store.writer.activeRepositories(ownedBy: "acme"))
        let at = Date(timeIntervalSince1970: 1_750_000_030)
        try store.writer.recordRequests([.poll: RequestTally(requests: 2, notModified: 1, points: 1)], token: "env GITHUB_TOKEN", at: at)
        try store.writer.recordRequests([.poll: RequestTally(requests: 1, notModified: 0, points: 1)], token: "env GITHUB_TOKEN", at: at)
        #expect(try store.committed("SELECT requests, not_modified, points FROM request_counts") == [["3", "1", "2"]])
    }

    @Test(arguments: Backend.allCases)
    func aBranchListingIsKeptPerRepositoryAndReplacedWhole(backend: Backend) async throws {
        let store = try await StoreUnderTest(backend)
        let repository = try store.writer.adopt(StoreFixtures.identity, requestedAs: StoreFixtures.identity.fullName)
        #expect(try store.writer.branchListing(repositoryID: repository.id) == nil)
        let head = String(repeating: "a", count: 40)
        let first = BranchListing(pages: [
            .init(
                url: "https://api.example/repos/acme/widgets/branches?per_page=100", etag: "W/\"e1\"", next: nil,
                branches: [
                    .init(name: "main", head: head), .init(name: "release/1.0", head: String(repeating: "b", count: 40)),
                ])
        ])
        try first.keep(for: StoreFixtures.identity.fullName, in: store.writer)
        #expect(try store.writer.branchListing(repositoryID: repository.id) == first)
        let second = BranchListing(pages: [
            .init(url: "https://api.example/x", etag: nil, next: nil, branches: [.init(name: "main", head: head)])
        ])
        try store.writer.recordBranchListing(second, repositoryID: repository.id, at: Date())
        #expect(try store.writer.branchListing(repositoryID: repository.id) == second)
        #expect(try store.committed("SELECT count(*) FROM branch_listings") == [["1"]])
        // A repository the store does not hold keeps no listing.
        try first.keep(for: RepositoryName(parsing: "acme/other")!, in: store.writer)
        #expect(try store.committed("SELECT count(*) FROM branch_listings") == [["1"]])
    }
}
