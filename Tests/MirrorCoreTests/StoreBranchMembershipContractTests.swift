import Foundation
import MirrorTestSupport
import Testing

@testable import MirrorCore

/// `branch_commits` (issue #29, docs/BRANCHES.md "Membership"), in the store
/// contract suite: each test runs on a SQLite file and on a PostgreSQL database.
/// Recording a branch's head must leave its rows equal to what the head reaches,
/// whether the head is new, fast-forwarded (a merge too), rewound or rewritten;
/// and the readers answer `show` and `query --branch` from those rows.
extension StoreContractTests {
    /// 1 ← 2 ← 3 ← 4 ← 5, 6 on 2, and 7 merging 6 and 4.
    static let branchGraph: [Int: [Int]] = [1: [], 2: [1], 3: [2], 4: [3], 5: [4], 6: [2], 7: [6, 4]]

    /// What `head` reaches in `branchGraph`, as shas in byte order (computed here, not by a store).
    static func reached(from head: Int) -> [String] {
        var seen: Set<Int> = []
        var pending = [head]
        while let next = pending.popLast() {
            guard seen.insert(next).inserted else { continue }
            pending += branchGraph[next] ?? []
        }
        return seen.map(PayloadFixtures.sha).sorted()
    }

    /// Stores `graph` over git as `identity`'s commits, as a bootstrap would; the repository's id.
    static func storeFromGit(
        _ graph: [Int: [Int]] = branchGraph, in store: StoreUnderTest, as identity: RepositoryIdentity = StoreFixtures.identity
    ) async throws -> Int64 {
        let repository = try store.writer.adopt(identity, requestedAs: identity.fullName)
        let commits = graph.keys.sorted().map { StoreFixtures.commit($0, parents: graph[$0]!) }
        _ = try await store.writer.withBatches(limits: BatchLimits()) { batches in
            try batches.storeFromGit(commits, repositoryID: repository.id)
        }
        return repository.id
    }

    /// Records a complete sync of `branch` that found it at `head` (nil: an empty repository's branch).
    static func recordHead(_ head: Int?, of branch: String, in store: StoreUnderTest, repositoryID: Int64) throws {
        try store.writer.recordAttempt(repositoryID: repositoryID, branch: branch)
        try store.writer.recordSuccess(
            repositoryID: repositoryID, branch: branch, headSHA: head.map(PayloadFixtures.sha), headETag: nil, complete: true,
            rateLimit: nil)
    }

    static func rows(_ store: StoreUnderTest, branch: String) throws -> [String] {
        try store.committed(
            """
            SELECT c.sha FROM branch_commits bc JOIN repository_branches b ON b.id = bc.branch_id
            JOIN commits c ON c.id = bc.commit_id WHERE b.name = $1 ORDER BY c.sha
            """, [branch]
        ).compactMap { $0[0] }
    }

    @Test(arguments: Backend.allCases)
    func eachRecordedHeadLeavesTheBranchHoldingExactlyWhatItReaches(backend: Backend) async throws {
        let store = try await StoreUnderTest(backend)
        let repositoryID = try await Self.storeFromGit(in: store)
        func record(_ branch: String, _ head: Int?, sourceLocation: SourceLocation = #_sourceLocation) throws {
            try Self.recordHead(head, of: branch, in: store, repositoryID: repositoryID)
            #expect(try Self.rows(store, branch: branch) == (head.map(Self.reached(from:)) ?? []), sourceLocation: sourceLocation)
        }
        try record("main", 3)  // a new branch
        try record("main", 5)  // fast-forward
        try record("topic", 4)  // a second branch sharing history
        try record("main", 2)  // rewound
        try record("main", 6)  // fast-forward off the old line
        try record("main", 7)  // fast-forward through a merge: 3 and 4 join through the second parent
        try record("main", 5)  // rewritten: 5 does not descend from 7
        try record("main", 5)  // unchanged
        try record("void", nil)  // an empty repository's branch: no rows
        #expect(try Self.rows(store, branch: "topic") == Self.reached(from: 4), "another branch's moves leave it alone")
        #expect(try store.committedCount("SELECT count(*) FROM repository_branches") == 3)

        // The readers answer from the rows.
        let reader = try store.location.openCommitReader()
        guard case .found(let detail) = try reader.resolveCommit(PayloadFixtures.sha(4), mailmap: nil) else {
            Issue.record("commit 4 is stored")
            return
        }
        #expect(detail.branches == [RepositoryBranches(repository: "acme/widgets", names: ["main", "topic"])])
        guard case .found(let onNone) = try reader.resolveCommit(PayloadFixtures.sha(7), mailmap: nil) else {
            Issue.record("commit 7 is stored")
            return
        }
        #expect(onNone.branches.isEmpty, "no recorded head reaches 7 any more")
        func queried(_ patterns: [String], repository: RepositoryName? = nil) throws -> [String] {
            var filter = CommitFilter(repository: repository)
            filter.branches = BranchSelection(patterns.compactMap(BranchPattern.init(parsing:)))
            return try reader.matchingCommits(filter).map(\.sha).sorted()
        }
        #expect(try queried(["topic"]) == Self.reached(from: 4))
        #expect(try queried(["t*"], repository: StoreFixtures.identity.fullName) == Self.reached(from: 4))
        #expect(try queried(["*"]) == Self.reached(from: 5), "the union, each commit once")
        #expect(try queried(["void"]).isEmpty)
        #expect(try queried(["nothing/*"]).isEmpty)
    }

    @Test(arguments: Backend.allCases)
    func purgingARepositoryTakesItsBranchesAndTheirRowsWithIt(backend: Backend) async throws {
        let store = try await StoreUnderTest(backend)
        let widgets = try await Self.mirror(
            store, StoreFixtures.identity, head: 3,
            [StoreFixtures.commit(3, parents: [2]), StoreFixtures.commit(2, parents: [1]), StoreFixtures.commit(1, parents: [])])
        let gadgets = try await Self.mirror(
            store, Self.gadgets, head: 2, [StoreFixtures.commit(2, parents: [1]), StoreFixtures.commit(1, parents: [])])
        for (repositoryID, head) in [(widgets, 3), (gadgets, 2)] {
            try store.writer.recordSuccess(
                repositoryID: repositoryID, branch: "main", headSHA: PayloadFixtures.sha(head), headETag: nil, complete: true,
                rateLimit: nil)
        }
        #expect(try store.committedCount("SELECT count(*) FROM branch_commits") == 5)
        _ = try store.writer.removeAndPurge(repositoryID: widgets, reason: "test")
        #expect(try store.committedCount("SELECT count(*) FROM repository_branches") == 1)
        let left = try store.committed(
            "SELECT c.sha FROM branch_commits bc JOIN commits c ON c.id = bc.commit_id ORDER BY c.sha"
        ).compactMap { $0[0] }
        #expect(left == [1, 2].map(PayloadFixtures.sha).sorted(), "gadgets keeps its branch and the commits it shares")
        #expect(try store.committedCount("SELECT count(*) FROM branch_commits") == 2)
        let check = try store.location.openCommitReader().check()
        #expect(check.foreignKeyViolations.isEmpty, "\(check.foreignKeyViolations)")
    }

    /// A branch's first rows when its repository holds exactly what the head
    /// reaches, and when it holds more or less than that: each case below breaks
    /// one condition of the PostgreSQL store's proof that the head reaches exactly
    /// the repository's commits (BranchMembership.swift), which must then fall
    /// back to the walk.
    enum FirstRowsCase: String, CaseIterable, Sendable {
        /// The head reaches every stored commit, through a merge.
        case wholeHistory
        /// A stored commit descends from the head (the head moved back).
        case headBehindAStoredCommit
        /// A second root no commit descends from.
        case unreachedRoot
        /// The head reaches commits another repository stored.
        case parentsStoredByAnotherRepository
        /// The head itself is not stored: it reaches nothing stored.
        case headNotStored

        /// The repository's commits as numbers and their parents, the other repository's, and the head.
        var graph: (own: [Int: [Int]], other: [Int: [Int]], head: Int) {
            switch self {
            case .wholeHistory: return ([1: [], 2: [1], 3: [2], 4: [3], 6: [2], 7: [6, 4]], [:], 7)
            case .headBehindAStoredCommit: return ([1: [], 2: [1], 3: [2], 4: [3], 5: [4]], [:], 4)
            case .unreachedRoot: return ([1: [], 2: [1], 3: [2], 8: []], [:], 3)
            case .parentsStoredByAnotherRepository: return ([3: [2], 4: [3]], [1: [], 2: [1]], 4)
            case .headNotStored: return ([1: [], 2: [1]], [:], 9)
            }
        }
    }

    @Test(arguments: Backend.allCases, FirstRowsCase.allCases)
    func aBranchsFirstRowsAreWhatItsHeadReaches(backend: Backend, shape: FirstRowsCase) async throws {
        let store = try await StoreUnderTest(backend)
        let (own, other, head) = shape.graph
        if !other.isEmpty { _ = try await Self.storeFromGit(other, in: store, as: Self.gadgets) }
        let repositoryID = try await Self.storeFromGit(own, in: store)
        try Self.recordHead(head, of: "main", in: store, repositoryID: repositoryID)
        let everything = own.merging(other) { mine, _ in mine }
        var reached: Set<Int> = []
        var pending = [head]
        while let next = pending.popLast() {
            if reached.insert(next).inserted { pending += everything[next] ?? [] }
        }
        let storedReached = reached.filter { everything[$0] != nil }
        #expect(try Self.rows(store, branch: "main") == storedReached.map(PayloadFixtures.sha).sorted())
    }
}
