import Foundation
import MirrorTestSupport
import Testing

@testable import MirrorCore

/// A branch deleted on GitHub (issue #29, docs/BRANCHES.md "Gone branches"), in the
/// store contract suite: on a SQLite file and on a PostgreSQL database. Marking it
/// gone keeps every commit, its sync state and its rows; `status` reads it as gone
/// since the date given; its next successful sync makes it active again. The
/// commits no other branch reaches are marked off-branch while it is gone (kept,
/// hidden from queries, as after a rewrite) and on-branch again when it returns.
extension StoreContractTests {
    /// The repository's commits marked off-branch, and the shas a plain `query` lists, both sorted.
    static func offBranch(_ store: StoreUnderTest) throws -> (marked: [String], listed: [String]) {
        let marked = try store.committed(
            """
            SELECT c.sha FROM repository_commits rc JOIN commits c ON c.id = rc.commit_id
            WHERE rc.off_branch_since IS NOT NULL ORDER BY c.sha
            """
        ).compactMap { $0.first ?? nil }
        var listed: [String] = []
        try store.location.openCommitReader().forEachCommit(matching: CommitFilter()) { listed.append($0.sha) }
        return (marked, listed.sorted())
    }

    @Test(arguments: Backend.allCases)
    func aGoneBranchKeepsItsCommitsAndComesBackWhenSyncedAgain(backend: Backend) async throws {
        let store = try await StoreUnderTest(backend)
        let repositoryID = try await Self.storeFromGit(in: store)
        for (branch, head) in [("main", 5), ("topic", 6)] {
            try Self.recordHead(head, of: branch, in: store, repositoryID: repositoryID)
        }
        let goneAt = Date(timeIntervalSince1970: 1_700_000_000)
        func states() throws -> [String: String?] {
            Dictionary(
                try store.location.openCommitReader().allSyncStates().map { ($0.branch, $0.branchGoneSince) },
                uniquingKeysWith: { first, _ in first })
        }
        #expect(try states() == ["main": nil, "topic": nil])
        let everyCommit = Self.branchGraph.keys.map(PayloadFixtures.sha).sorted()
        #expect(try Self.offBranch(store) == ([], everyCommit))
        // `show` names the branches that hold a commit, as `git branch --contains` would: a deleted one no more.
        func holding(_ commit: Int) throws -> [RepositoryBranches] {
            guard case .found(let detail) = try store.location.openCommitReader().resolveCommit(PayloadFixtures.sha(commit), mailmap: nil)
            else { return [] }
            return detail.branches
        }
        #expect(try holding(6) == [RepositoryBranches(repository: "acme/widgets", names: ["topic"])])

        #expect(try store.writer.markBranchGone(repositoryID: repositoryID, branch: "topic", at: goneAt))
        #expect(try !store.writer.markBranchGone(repositoryID: repositoryID, branch: "topic", at: .now), "already gone: kept as it was")
        #expect(try !store.writer.markBranchGone(repositoryID: repositoryID, branch: "never-mirrored", at: goneAt))
        #expect(try states() == ["main": nil, "topic": ISO8601Timestamp.format(goneAt)])
        #expect(try store.committedCount("SELECT count(*) FROM commits") == Self.branchGraph.count, "no commit deleted")
        #expect(try Self.rows(store, branch: "topic") == Self.reached(from: 6), "its rows as of its last head")
        #expect(
            try store.committed("SELECT state, gone_since FROM repository_branches WHERE name = $1", ["topic"])
                == [["gone", ISO8601Timestamp.format(goneAt)]])
        #expect(try store.committed("SELECT head_sha FROM sync_state WHERE branch = $1", ["topic"]) == [[PayloadFixtures.sha(6)]])
        #expect(try holding(6).isEmpty, "show no longer names a deleted branch")
        // What only the deleted branch reached (6), and 7 that no branch reaches, leave the branches.
        #expect(try Self.offBranch(store) == ([PayloadFixtures.sha(6), PayloadFixtures.sha(7)].sorted(), Self.reached(from: 5)))
        #expect(try holding(2) == [RepositoryBranches(repository: "acme/widgets", names: ["main"])])
        let statistics = try store.location.openCommitReader().branchStatistics(repository: nil)
        #expect(statistics.map(\.branch) == ["main", "topic"])
        #expect(statistics.map(\.state) == ["active", "gone"])
        #expect(statistics.map(\.counts.commits) == [Self.reached(from: 5).count, Self.reached(from: 6).count])

        // It reappears, now at 7: active again, its rows those of its new head.
        try Self.recordHead(7, of: "topic", in: store, repositoryID: repositoryID)
        #expect(try states() == ["main": nil, "topic": nil])
        #expect(try store.committed("SELECT state, gone_since FROM repository_branches WHERE name = $1", ["topic"]) == [["active", nil]])
        #expect(try Self.rows(store, branch: "topic") == Self.reached(from: 7))
        #expect(try holding(6) == [RepositoryBranches(repository: "acme/widgets", names: ["topic"])])
        #expect(try Self.offBranch(store) == ([], everyCommit), "back on a branch, listed again")
    }
}
