import Foundation
import MirrorTestSupport
import SQLite
import Testing

@testable import MirrorCore
@testable import MirrorSQLite

/// `MirrorStore.withBatches`: pages share a transaction until their batch is
/// due, the scope's end commits what is open however it ends, and a failed
/// write takes only its batch back. Another connection (a reader, as
/// `commitsctl query` is) sees only what committed.
@Suite struct StoreBatchesTests {
    let directory: TemporaryDirectory
    let store: MirrorStore
    let repositoryID: Int64
    let walk: Walk

    init() throws {
        directory = try TemporaryDirectory()
        store = try MirrorStore(path: directory.path("commits.sqlite"))
        let repository = try store.ensureRepository(named: RepositoryName(owner: "o", name: "r"))
        repositoryID = repository.id
        try store.recordAttempt(repositoryID: repositoryID, branch: "main")
        walk = try store.beginWalk(repositoryID: repositoryID, branch: "main", headSHA: PayloadFixtures.sha(1))
    }

    /// Page `n` of a linear history: one commit whose parent is on page `n + 1`.
    func page(_ n: Int) throws -> [Commit] {
        try PayloadDecoder().decodeCommits(
            PayloadFixtures.page([PayloadFixtures.element(sha: PayloadFixtures.sha(n), parents: [PayloadFixtures.sha(n + 1)])]))
    }

    /// Stores pages `numbers` one after another as one walk does; returns the last checkpoint.
    @discardableResult
    func storePages(_ numbers: ClosedRange<Int>, through batches: any PageBatches, from start: Walk? = nil) throws -> Walk {
        var checkpoint = start ?? walk
        for n in numbers {
            checkpoint = try batches.store(
                page: try page(n), repositoryID: repositoryID, walk: checkpoint, nextURL: "next-\(n)", pagesTotal: 9
            ).checkpoint
        }
        return checkpoint
    }

    /// What another connection sees committed.
    func committed() throws -> (commits: Int, pagesDone: Int?) {
        let reader = try MirrorReader(path: store.path)
        return (
            try reader.db.scalarInt("SELECT count(*) FROM commits") ?? -1,
            try reader.db.scalarInt("SELECT pages_done FROM sync_walks WHERE id = ?", [walk.id])
        )
    }

    @Test func pagesShareATransactionUntilTheBatchIsDueAndTheCheckpointComesOut() async throws {
        try await store.withBatches(limits: BatchLimits(maximumPages: 3)) { batches in
            let afterTwo = try storePages(1...2, through: batches)
            #expect(batches.isOpen)
            #expect(try committed() == (0, 0), "two pages of three: nothing committed yet")
            let checkpoint = try storePages(3...3, through: batches, from: afterTwo)
            #expect(!batches.isOpen)
            #expect(try committed() == (3, 3), "the third page made the batch due")
            #expect(checkpoint.pagesDone == 3 && checkpoint.nextURL == "next-3" && checkpoint.pagesTotal == 9)
        }
    }

    struct Interrupted: Error {}

    @Test func aScopeEndedByAnErrorKeepsThePagesStoredWhole() async throws {
        await #expect(throws: Interrupted.self) {
            try await store.withBatches(limits: BatchLimits(maximumPages: 10)) { batches in
                try storePages(1...2, through: batches)
                throw Interrupted()
            }
        }
        #expect(try committed() == (2, 2))
        #expect(!store.db.isInTransaction)
    }

    @Test func aFailedWriteTakesBackOnlyItsBatch() async throws {
        // A trigger failing on page 3's commit stands in for a write error (a full disk).
        try store.db.execute(
            """
            CREATE TEMP TRIGGER fail_third BEFORE INSERT ON commits WHEN NEW.sha = '\(PayloadFixtures.sha(3))'
            BEGIN SELECT RAISE(ABORT, 'injected failure'); END
            """)
        await #expect(throws: (any Error).self) {
            try await store.withBatches(limits: BatchLimits(maximumPages: 1)) { batches in
                try storePages(1...3, through: batches)
            }
        }
        // Pages 1 and 2 were batches of their own, committed; page 3 left nothing.
        #expect(try committed() == (2, 2))
        #expect(!store.db.isInTransaction)
    }

    @Test func gitCommitsCommitByCount() async throws {
        try await store.withBatches(limits: BatchLimits(maximumCommits: 2)) { batches in
            #expect(try batches.storeFromGit(try page(1), repositoryID: repositoryID) == 1)
            let afterOne = try committed().commits
            #expect(batches.isOpen && afterOne == 0)
            #expect(try batches.storeFromGit(try page(2), repositoryID: repositoryID) == 1)
            let afterTwo = try committed().commits
            #expect(!batches.isOpen && afterTwo == 2)
            _ = try batches.storeFromGit(try page(3), repositoryID: repositoryID)
        }
        #expect(try committed().commits == 3, "the scope's end commits the rest")
    }
}
