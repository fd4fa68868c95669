import Foundation
import MirrorTestSupport
import Testing

@testable import MirrorCore

/// A page that names one sha twice (a hostile or confused server) is stored
/// alike by both stores: the sha once, in the page order of its first row; over
/// REST with its last row's data, as a later page would replace it; over git
/// with its first row's, as git never replaces stored data. The replacement
/// counts as an update, as it did on the SQLite store.
@Suite struct StoreRepeatedSHAContractTests {
    typealias Backend = StoreContractTests.Backend
    typealias StoreUnderTest = StoreContractTests.StoreUnderTest

    static let page = [
        StoreFixtures.commit(2, parents: [1]),
        StoreFixtures.commit(1, parents: [], message: "first wording"),
        StoreFixtures.commit(3, parents: [2]),
        StoreFixtures.commit(
            1, parents: [], message: "second wording\n\nCo-authored-by: Lin <lin@example.com>", author: "Barbara"),
    ]

    /// Each commit's sha, message and author in id order, then each co-author's commit and name.
    static func stored(_ store: StoreUnderTest) throws -> [[String?]] {
        try store.committed("SELECT c.sha, c.message, a.name FROM commits c JOIN authors a ON a.id = c.author_id ORDER BY c.id")
            + store.committed(
                """
                SELECT c.sha, p.name FROM commit_coauthors k JOIN commits c ON c.id = k.commit_id
                JOIN authors p ON p.id = k.author_id ORDER BY c.id, k.position
                """)
    }

    @Test(arguments: Backend.allCases)
    func overRESTTheLastRowsDataWins(backend: Backend) async throws {
        let store = try await StoreUnderTest(backend)
        let (repositoryID, walk) = try StoreContractTests.walking(store, head: 3)
        let stored = try await store.writer.withBatches(limits: BatchLimits()) { batches in
            try batches.store(page: Self.page, repositoryID: repositoryID, walk: walk, nextURL: nil, pagesTotal: nil)
        }
        #expect(stored.outcome.added == 3 && stored.outcome.updated == 1, "\(stored.outcome)")
        #expect(
            try Self.stored(store) == [
                [PayloadFixtures.sha(2), "commit 2\n\nbody of 2", "Ada"],
                [PayloadFixtures.sha(1), Self.page[3].message, "Barbara"],
                [PayloadFixtures.sha(3), "commit 3\n\nbody of 3", "Ada"],
                [PayloadFixtures.sha(1), "Lin"],
            ])
        #expect(try store.committed("SELECT name FROM authors ORDER BY id").map { $0[0] } == ["Ada", "Grace", "Barbara", "Lin"])
    }

    @Test(arguments: Backend.allCases)
    func overGitTheFirstRowsDataWins(backend: Backend) async throws {
        let store = try await StoreUnderTest(backend)
        let (repositoryID, _) = try StoreContractTests.walking(store, head: 3)
        let added = try await store.writer.withBatches(limits: BatchLimits()) { batches in
            try batches.storeFromGit(Self.page, repositoryID: repositoryID)
        }
        #expect(added == 3)
        #expect(
            try Self.stored(store) == [
                [PayloadFixtures.sha(2), "commit 2\n\nbody of 2", "Ada"],
                [PayloadFixtures.sha(1), "first wording", "Ada"],
                [PayloadFixtures.sha(3), "commit 3\n\nbody of 3", "Ada"],
            ])
    }
}
