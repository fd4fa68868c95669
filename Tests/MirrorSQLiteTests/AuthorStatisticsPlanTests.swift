import Foundation
import MirrorTestSupport
import SQLite
import Testing

@testable import MirrorCore
@testable import MirrorSQLite

/// `authors` over the whole store reads each author's count from
/// `author_commit_counts` and its first and last dates from its ends of the
/// `commits_author_id` index; with that index away (a bulk load under way) or
/// for one repository it groups the commits. Every way gives the answer
/// worked out here from the commits themselves.
@Suite struct AuthorStatisticsPlanTests {
    let directory: TemporaryDirectory
    let store: MirrorStore

    /// (repository, author, day of January 2024); Grace also co-authors commit 3.
    static let commits: [(repository: String, author: String, day: Int)] = [
        ("o/one", "Ada", 3), ("o/one", "Ada", 9), ("o/one", "Grace", 5), ("o/two", "Ada", 1),
        ("o/two", "Ada", 20), ("o/two", "Linus", 7), ("o/one", "Grace", 12),
    ]

    init() throws {
        directory = try TemporaryDirectory()
        store = try MirrorStore(path: directory.path("commits.sqlite"))
        for repository in ["o/one", "o/two"] {
            let payloads = Self.commits.enumerated().filter { $0.element.repository == repository }.reversed().map {
                n, commit in
                QueryFixtures.payload(
                    sha: QueryFixtures.sha(n + 1),
                    message: "change \(n + 1)" + (n == 2 ? "\n\nCo-authored-by: Linus <linus@example.com>" : ""),
                    author: (commit.author, "\(commit.author.lowercased())@example.com"),
                    date: String(format: "2024-01-%02dT12:00:00Z", commit.day), repository: repository)
            }
            try QueryFixtures.fill(store, payloads, repository: repository)
        }
    }

    /// What `authors` must say, from `commits` alone: name, commits, first, last day, co-authored.
    static func expected(in repository: String? = nil) -> [String] {
        let scoped = commits.filter { repository == nil || $0.repository == repository }
        var lines: [String] = []
        for name in Set(scoped.map(\.author) + ["Linus"]) {
            let days = scoped.filter { $0.author == name }.map(\.day)
            let coAuthored = name == "Linus" && scoped.contains { $0 == ("o/one", "Grace", 5) } ? 1 : 0
            guard !days.isEmpty || coAuthored > 0 else { continue }
            let credited = coAuthored > 0 ? [5] : []
            let first = (days + credited).min()!, last = (days + credited).max()!
            lines.append("\(name) \(days.count) \(first)-\(last) \(coAuthored)")
        }
        return lines.sorted()
    }

    func answer(in repository: String? = nil) throws -> [String] {
        let day = { (date: String) in Int(date.dropFirst(8).prefix(2))! }
        return try MirrorReader(path: store.path)
            .authorStatistics(repository: repository.flatMap(RepositoryName.init(parsing:)))
            .map { "\($0.name) \($0.commits) \(day($0.firstCommitDate))-\(day($0.lastCommitDate)) \($0.coAuthored)" }
            .sorted()
    }

    @Test func theWholeStoreIsReadFromItsCountsAndIndexEnds() throws {
        #expect(try answer() == Self.expected())
        #expect(try answer() == ["Ada 4 1-20 0", "Grace 2 5-12 0", "Linus 1 5-7 1"])
        let plan = try MirrorReader(path: store.path).db.prepare("EXPLAIN QUERY PLAN " + MirrorReader.authoredFromCounts.sqlite)
            .map { $0.string(3) }
        #expect(plan.contains { $0.contains("USING COVERING INDEX commits_author_id (author_id=?)") }, "\(plan)")
        #expect(!plan.contains { $0.hasPrefix("SCAN commits") }, "\(plan)")
    }

    @Test func oneRepositoryIsCountedFromItsCommits() throws {
        #expect(try answer(in: "o/one") == Self.expected(in: "o/one"))
        #expect(try answer(in: "o/two") == Self.expected(in: "o/two"))
    }

    @Test func withTheIndexAwayTheCommitsAreGrouped() throws {
        try store.db.execute("DROP INDEX commits_author_id")
        #expect(try answer() == Self.expected())
    }
}
