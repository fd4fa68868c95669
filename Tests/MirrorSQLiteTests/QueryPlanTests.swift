import MirrorTestSupport
import Foundation
import GitHubSim
import Testing
@testable import MirrorCore
@testable import MirrorSQLite

/// Every query shape `commitsctl query` emits, under every access path the
/// planner can take, is answered from indexes: `EXPLAIN QUERY PLAN` never
/// shows `commits` read whole (a bare `SCAN c` or `SCAN commits`), so a query
/// stays milliseconds at millions of commits.
@Suite struct QueryPlanTests {
    static let storePath: String = {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("query-plans-\(UUID().uuidString)")
        try! FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let path = directory.appendingPathComponent("plans.sqlite").path
        let writer = try! MirrorStore(path: path)
        var spec = SyntheticSpec(commits: 3_000, shape: .realistic, seed: 17)
        spec.authors = 40
        let history = SyntheticRepository(spec: spec)
        let commits = (0..<history.count).reversed().map { QueryFixtures.payload(history.commit(at: $0), repository: "acme/widgets") }
        try! QueryFixtures.fill(writer, commits, repository: "acme/widgets")
        return path
    }()

    static let day = Date(timeIntervalSince1970: TimeInterval(SyntheticRepository.firstCommitTime))

    /// The shapes `query` builds from its flags (see `commitsctl query --help`).
    static let shapes: [(String, CommitFilter)] = {
        let author = SyntheticRepository(spec: SyntheticSpec(commits: 1, authors: 40, seed: 17)).people[3].name
        // (The pool depends on the seed and size only, not on the shape.)
        var coAuthor = CommitFilter(limit: 50)
        coAuthor.coAuthors = ["a"]
        var twoGreps = CommitFilter(grep: "fix", limit: 50)
        twoGreps.greps.append("merge")
        twoGreps.allMatch = true
        var follow = CommitFilter()
        follow.arrivedAfter = 2_500
        follow.arrivedThrough = 2_600
        var followRepository = CommitFilter(repository: RepositoryName(parsing: "acme/widgets"))
        followRepository.arrivedAfter = 2_500
        var followStart = CommitFilter(grep: "fix")
        followStart.arrivedThrough = 2_500
        return [
            ("newest 50", CommitFilter(limit: 50)),
            ("everything", CommitFilter()),
            ("author", CommitFilter(author: author, limit: 50)),
            ("author, all", CommitFilter(author: author)),
            ("author substring", CommitFilter(author: "a", limit: 50)),
            ("committer", CommitFilter(committer: author, limit: 50)),
            ("co-author", coAuthor),
            ("grep", CommitFilter(grep: "fix", limit: 50)),
            ("grep, all", CommitFilter(grep: "fix")),
            ("grep, short needle", CommitFilter(grep: "ix", limit: 50)),
            ("two greps, all match", twoGreps),
            ("inverted grep", CommitFilter(grep: "fix", invertGrep: true, limit: 50)),
            ("author and grep", CommitFilter(author: author, grep: "fix", limit: 50)),
            ("merges only", CommitFilter(merges: .only, limit: 50)),
            ("no merges", CommitFilter(merges: .exclude, limit: 50)),
            ("since and until", CommitFilter(since: day.addingTimeInterval(86_400), until: day.addingTimeInterval(3 * 86_400), limit: 50)),
            ("repository", CommitFilter(repository: RepositoryName(parsing: "acme/widgets"), limit: 50)),
            (
                "repository with rewritten-away commits",
                CommitFilter(repository: RepositoryName(parsing: "acme/widgets"), includeOffBranch: true)
            ),
            ("follow (arrived after, through)", follow),
            ("follow a repository (arrived after)", followRepository),
            ("follow's first listing (arrived through)", followStart),
        ]
    }()

    @Test(arguments: QueryStrategy.allCases)
    func noShapeReadsTheCommitsTableWhole(_ strategy: QueryStrategy) throws {
        let store = try MirrorReader(path: Self.storePath)
        for (name, filter) in Self.shapes {
            let steps = try store.queryPlanSteps(filter, strategy: strategy)
            #expect(!steps.isEmpty, "\(name): no plan")
            let wholeTable = steps.filter { $0 == "SCAN c" || $0 == "SCAN commits" }
            #expect(wholeTable.isEmpty, "\(name) (\(strategy)) reads commits whole: \(steps)")
        }
    }
}
