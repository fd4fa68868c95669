import MirrorTestSupport
import Foundation
import GitHubSim
import Testing
@testable import MirrorCore
@testable import MirrorSQLite
import SQLite

/// Issue #5 acceptance 1: on the real swift-evolution history, query counts
/// equal counts computed independently from the dataset file.
@Suite(
    .enabled(if: TestSupport.hasDataset, "../shared/datasets/swift-evolution.commits.jsonl.gz not present: skipping real-data query tests"))
struct QueryDatasetTests {
    let store: MirrorReader
    let dataset = QueryFixtures.dataset

    init() throws {
        store = try MirrorReader(path: QueryFixtures.datasetStorePath)
    }

    func count(_ filter: CommitFilter) throws -> Int { try store.commits(matching: filter).count }

    func expected(_ predicate: (DatasetCommit) -> Bool) -> Int { dataset.filter(predicate).count }

    static func authorMatches(_ commit: DatasetCommit, _ text: String) -> Bool {
        "\(commit.author.name) <\(commit.author.email)>".lowercased().containsScalars(text.lowercased())
    }

    static func messageMatches(_ commit: DatasetCommit, _ text: String) -> Bool {
        commit.message.lowercased().containsScalars(text.lowercased())
    }

    static func committed(_ commit: DatasetCommit) -> Date { ISO8601Timestamp.parse(commit.committer.date)! }

    @Test func theStoreHoldsTheWholeDataset() throws {
        #expect(dataset.count == 7_807)
        #expect(try store.commitCount() == dataset.count)
        #expect(try count(CommitFilter()) == dataset.count)
    }

    @Test(arguments: ["Joe Groff", "groff", "jgroff@apple.com", "JGROFF@Apple.com", "arcata@gmail.com"])
    func authorCountsMatchTheDataset(text: String) throws {
        let expected = expected { Self.authorMatches($0, text) }
        #expect(try count(CommitFilter(author: text)) == expected)
        #expect(try count(CommitFilter(author: text, limit: 50)) == min(50, expected))
    }

    @Test func joeGroffHas324Commits() throws {
        #expect(expected { Self.authorMatches($0, "Joe Groff") } == 324)
        #expect(try count(CommitFilter(author: "Joe Groff")) == 324)
        #expect(try count(CommitFilter(author: "jgroff@apple.com")) == 292)
    }

    @Test func committerCountsMatchTheDataset() throws {
        let expected = expected { "\($0.committer.name) <\($0.committer.email)>".lowercased().contains("github") }
        #expect(expected > 0)
        #expect(try count(CommitFilter(committer: "GitHub")) == expected)
    }

    @Test(arguments: ["fix", "FIX", "Fix", "fi", "proposal", "SE-0", "é", "review manager", "x"])
    func grepCountsMatchTheDataset(text: String) throws {
        let expected = expected { Self.messageMatches($0, text) }
        #expect(try count(CommitFilter(grep: text)) == expected, "--grep \(text)")
        #expect(try count(CommitFilter(grep: text, invertGrep: true)) == dataset.count - expected, "--grep \(text) --invert-grep")
    }

    @Test func grepFixMatches1201Messages() throws {
        let independent = expected { Self.messageMatches($0, "fix") }
        #expect(independent == 1_201)
        // Through the trigram index, and through a plain scan of the stored messages.
        #expect(try count(CommitFilter(grep: "fix")) == independent)
        #expect(try store.db.scalarInt("SELECT count(*) FROM commits WHERE instr(lower(message), 'fix') > 0") == independent)
        #expect(try store.db.scalarInt("SELECT count(*) FROM commits_fts WHERE commits_fts MATCH '\"fix\"'") == independent)
    }

    @Test func mergeCountsMatchTheDataset() throws {
        #expect(expected { $0.parents.count <= 1 } == 6_463)
        #expect(try count(CommitFilter(merges: .exclude)) == 6_463)
        #expect(try count(CommitFilter(merges: .only)) == expected { $0.parents.count > 1 })
    }

    @Test func dateWindowMatchesTheDataset() throws {
        let since = ISO8601Timestamp.parse("2017-03-01T00:00:00Z")!
        let until = ISO8601Timestamp.parse("2018-06-30T23:59:59Z")!
        let expected = expected { (since...until).contains(Self.committed($0)) }
        #expect(expected > 100)
        #expect(try count(CommitFilter(since: since, until: until)) == expected)
        #expect(try count(CommitFilter(since: since)) == self.expected { Self.committed($0) >= since })
        #expect(try count(CommitFilter(until: until)) == self.expected { Self.committed($0) <= until })
    }

    @Test func combinedFiltersMatchTheDataset() throws {
        let since = ISO8601Timestamp.parse("2016-01-01T00:00:00Z")!
        let until = ISO8601Timestamp.parse("2022-12-31T23:59:59Z")!
        let filter = CommitFilter(author: "groff", grep: "proposal", merges: .exclude, since: since, until: until)
        let expected = expected {
            Self.authorMatches($0, "groff") && Self.messageMatches($0, "proposal") && $0.parents.count <= 1
                && (since...until).contains(Self.committed($0))
        }
        #expect(expected > 10)
        #expect(try count(filter) == expected)
        let inverted = self.expected {
            Self.authorMatches($0, "groff") && !Self.messageMatches($0, "proposal") && $0.parents.count <= 1
                && (since...until).contains(Self.committed($0))
        }
        var invertedFilter = filter
        invertedFilter.invertGrep = true
        #expect(try count(invertedFilter) == inverted)
    }

    /// Newest committer date first; equal dates keep git's order (the dataset's).
    @Test func orderIsGitLogOrderByCommitterDate() throws {
        let expected = dataset.enumerated()
            .sorted { a, b in
                let (da, db) = (Self.committed(a.element), Self.committed(b.element))
                return da != db ? da > db : a.offset < b.offset
            }
            .map(\.element.sha)
        #expect(try store.commits(matching: CommitFilter()).map(\.sha) == expected)
        #expect(try store.commits(matching: CommitFilter(limit: 50)).map(\.sha) == Array(expected.prefix(50)))
    }

    /// Every access path returns the same commits in the same order.
    @Test(arguments: [
        CommitFilter(author: "Joe Groff"),
        CommitFilter(author: "o"),
        CommitFilter(committer: "GitHub", merges: .only),
        CommitFilter(grep: "fix"),
        CommitFilter(grep: "FI"),
        CommitFilter(grep: "fix", invertGrep: true),
        CommitFilter(author: "groff", grep: "proposal", merges: .exclude),
        CommitFilter(merges: .exclude, repository: RepositoryName(owner: "swiftlang", name: "swift-evolution")),
        CommitFilter(grep: "review", since: ISO8601Timestamp.parse("2019-01-01T00:00:00Z")!),
    ])
    func everyAccessPathAgrees(filter: CommitFilter) throws {
        for limit in [nil, 1, 50] as [Int?] {
            var filter = filter
            filter.limit = limit
            var results: [QueryStrategy: [String]] = [:]
            for strategy in QueryStrategy.allCases {
                var shas: [String] = []
                try store.forEachCommit(matching: filter, strategy: strategy) { shas.append($0.sha) }
                results[strategy] = shas
            }
            let automatic = try #require(results[.automatic])
            #expect(!automatic.isEmpty)
            for (strategy, shas) in results {
                #expect(shas == automatic, "\(strategy) with limit \(limit.map(String.init) ?? "none")")
            }
        }
    }

    /// A caller that prints neither parents nor repositories gets the same commits,
    /// in the same order, with only those two left empty; on every access path.
    @Test(arguments: [
        CommitFilter(author: "Joe Groff", limit: 50), CommitFilter(grep: "fix", limit: 50), CommitFilter(limit: 50),
        CommitFilter(author: "o"),
    ])
    func leavingOutParentsAndRepositoriesChangesNothingElse(filter: CommitFilter) throws {
        for strategy in QueryStrategy.allCases {
            var full: [CommitSummary] = []
            try store.forEachCommit(matching: filter, strategy: strategy) { full.append($0) }
            var lean = filter
            lean.needsParentsAndRepositories = false
            var leaner: [CommitSummary] = []
            try store.forEachCommit(matching: lean, strategy: strategy) { leaner.append($0) }
            #expect(full.contains { !$0.parents.isEmpty && !$0.repositories.isEmpty })
            let blanked = full.map { commit in
                var commit = commit
                (commit.parents, commit.repositories) = ([], [])
                return commit
            }
            #expect(leaner == blanked, "\(strategy)")
        }
    }

    @Test func authorQueriesWalkTheAuthorIndex() throws {
        #expect(try store.queryPlanDescription(CommitFilter(author: "Joe Groff", limit: 50)) == "author_id index × 2")
        // 1,201 matches of 7,807: walking dates finds 50 sooner than sorting them all.
        #expect(try store.queryPlanDescription(CommitFilter(grep: "fix", limit: 50)) == "date index")
        #expect(try store.queryPlanDescription(CommitFilter(grep: "fix")) == "set: message index")
        #expect(expected { Self.messageMatches($0, "SE-0001") } < 100)
        #expect(try store.queryPlanDescription(CommitFilter(grep: "SE-0001", limit: 50)) == "set: message index")
        #expect(try store.queryPlanDescription(CommitFilter(limit: 50)) == "date index")
        #expect(try store.queryPlanDescription(CommitFilter(author: "no such person")) == "empty")
    }

    @Test func showCountsTheAuthorsCommitsOldestFirst() throws {
        let groff = dataset.enumerated().filter { $0.element.author.name == "Joe Groff" }
        let newest = try #require(store.commits(matching: CommitFilter(author: "Joe Groff", limit: 1)).first)
        guard case .found(let detail) = try store.resolveCommit(String(newest.sha.prefix(12))) else {
            Issue.record("newest Joe Groff commit not found by prefix")
            return
        }
        #expect(detail.authorCommitCount == groff.count)
        #expect(detail.authorPosition == groff.count)
        #expect(detail.commit.message == newest.message)
        // Every one of his commits: its place in his history, oldest first, as the
        // dataset orders it (committer date, then git's order for equal dates).
        let oldestFirst =
            groff
            .sorted { a, b in
                let (da, db) = (Self.committed(a.element), Self.committed(b.element))
                return da != db ? da < db : a.offset > b.offset
            }
            .map(\.element.sha)
        for (index, sha) in oldestFirst.enumerated() {
            guard case .found(let detail) = try store.resolveCommit(sha) else {
                Issue.record("\(sha) not found")
                continue
            }
            #expect(detail.authorPosition == index + 1, "\(sha)")
            #expect(detail.authorCommitCount == 324)
        }
    }

    @Test func authorAndRepositoryStatisticsMatchTheDataset() throws {
        // Names compare exactly (as bytes), as the store does: one author name
        // in the dataset appears in two Unicode normalizations.
        let names = Set(dataset.map { Array($0.author.name.utf8) })
        #expect(names.count == 505)
        // People credited only as co-authors are listed too, with no commits authored.
        let authors = try store.authorStatistics().filter { $0.commits > 0 }
        #expect(authors.count == names.count)
        #expect(authors.reduce(0) { $0 + $1.commits } == dataset.count)
        let groff = try #require(authors.first { $0.name == "Joe Groff" })
        #expect(groff.commits == 324)
        #expect(groff.emails == ["jgroff@apple.com", "arcata@gmail.com"])
        #expect(try store.authorStatistics(top: 3).count == 3)

        let stats = try store.repositoryStatistics()
        #expect(stats.count == 1)
        #expect(stats.first?.counts.commits == 7_807)
        #expect(stats.first?.counts.merges == 1_344)
        #expect(stats.first?.counts.authors == names.count)
    }
}
