import MirrorTestSupport
import Foundation
import SQLite
import Testing
@testable import MirrorCore
@testable import MirrorSQLite

/// Query semantics on small hand-made stores: literal matching, Unicode case,
/// merges, dates, repositories, and the message index kept exact.
@Suite struct QueryFilterTests {
    let directory: TemporaryDirectory
    let store: MirrorStore

    static let messages = [
        "Reach 100% coverage",
        "Rename snake_case helpers",
        #"Escape the \ in paths"#,
        #"Quote "it's" properly"#,
        "'; DROP TABLE commits; --",
        "Fix the école build\n\nBody mentions PREFIX handling",
        "Merge pull request #1 from ada/fix\n\nfix things",
        "Plain change",
        "fix* and NEAR(a b) are not FTS syntax here",
        "Ünïcödé FIXES ÉCOLE",
    ]

    init() throws {
        directory = try TemporaryDirectory()
        store = try MirrorStore(path: directory.path("commits.sqlite"))
        var payloads: [CommitPayload] = []
        for (index, message) in Self.messages.enumerated() {
            let n = Self.messages.count - index  // newest first
            let author = index % 2 == 0 ? ("Ada Lovelace", "ada@example.com") : ("Zoë Ünïcödé", "zoe_u%x@example.com")
            payloads.append(
                QueryFixtures.payload(
                    sha: QueryFixtures.sha(n), message: message, author: author,
                    committer: index == 6 ? ("GitHub", "noreply@github.com") : nil,
                    date: String(format: "2024-01-%02dT12:00:00Z", n),
                    parents: index == 6 ? [QueryFixtures.sha(n - 1), QueryFixtures.sha(100)] : [QueryFixtures.sha(n - 1)]))
        }
        try QueryFixtures.fill(store, payloads, repository: "o/r")
    }

    func subjects(_ filter: CommitFilter) throws -> [String] {
        try MirrorReader(path: store.path).commits(matching: filter).map(\.subject)
    }

    func grep(_ text: String, invert: Bool = false) throws -> [String] {
        try subjects(CommitFilter(grep: text, invertGrep: invert))
    }

    // MARK: - Literal matching (acceptance 4)

    @Test(arguments: [
        ("%", ["Reach 100% coverage"]),
        ("0% c", ["Reach 100% coverage"]),
        ("_", ["Rename snake_case helpers"]),
        ("e_c", ["Rename snake_case helpers"]),
        (#"\"#, [#"Escape the \ in paths"#]),
        (#"e \ i"#, [#"Escape the \ in paths"#]),
        ("'", [#"Quote "it's" properly"#, "'; DROP TABLE commits; --"]),
        (#""it's""#, [#"Quote "it's" properly"#]),
        (#"""#, [#"Quote "it's" properly"#]),
        ("'; DROP TABLE commits; --", ["'; DROP TABLE commits; --"]),
        ("fix*", ["fix* and NEAR(a b) are not FTS syntax here"]),
        ("NEAR(a", ["fix* and NEAR(a b) are not FTS syntax here"]),
        ("a OR b", []),
    ])
    func specialCharactersMatchLiterally(needle: String, expected: [String]) throws {
        #expect(try grep(needle) == expected, "--grep \(needle)")
        #expect(try store.commitCount() == Self.messages.count)
    }

    @Test func injectionAttemptsInEveryTextFilterHarmNothing() throws {
        for text in ["'; DROP TABLE commits; --", "\" OR 1=1 --", "%", "_", #"\"#, "') OR ('1'='1"] {
            _ = try MirrorReader(path: store.path).commits(matching: CommitFilter(author: text))
            _ = try MirrorReader(path: store.path).commits(matching: CommitFilter(committer: text))
            _ = try MirrorReader(path: store.path).commits(matching: CommitFilter(grep: text, invertGrep: true))
            _ = try MirrorReader(path: store.path).resolveCommit(text)
        }
        #expect(try store.commitCount() == Self.messages.count)
        #expect(try MirrorReader(path: store.path).integrityCheck() == "ok")
        // In author filters too, % and _ are ordinary characters.
        #expect(try MirrorReader(path: store.path).commits(matching: CommitFilter(author: "%")).count == 5)
        #expect(try MirrorReader(path: store.path).commits(matching: CommitFilter(author: "u%x")).count == 5)
        #expect(try MirrorReader(path: store.path).commits(matching: CommitFilter(author: "a%a")).isEmpty)
        #expect(try MirrorReader(path: store.path).commits(matching: CommitFilter(author: "e_u")).count == 5)
        #expect(try MirrorReader(path: store.path).commits(matching: CommitFilter(author: "_")).count == 5)
    }

    // MARK: - Case

    @Test func grepIgnoresCaseBeyondASCII() throws {
        #expect(try grep("ÉCOLE") == ["Fix the école build", "Ünïcödé FIXES ÉCOLE"])
        #expect(try grep("école") == ["Fix the école build", "Ünïcödé FIXES ÉCOLE"])
        #expect(try grep("é") == ["Fix the école build", "Ünïcödé FIXES ÉCOLE"])
        #expect(try grep("ÜN") == ["Ünïcödé FIXES ÉCOLE"])
        #expect(
            try grep("fix") == [
                "Fix the école build", "Merge pull request #1 from ada/fix", "fix* and NEAR(a b) are not FTS syntax here",
                "Ünïcödé FIXES ÉCOLE",
            ])
        #expect(try grep("fix", invert: true).count == Self.messages.count - 4)
        #expect(try grep("").count == Self.messages.count)
        #expect(try grep("", invert: true).isEmpty)
    }

    @Test func authorMatchesNameOrEmailIgnoringCase() throws {
        #expect(try MirrorReader(path: store.path).commits(matching: CommitFilter(author: "ZOË")).count == 5)
        #expect(try MirrorReader(path: store.path).commits(matching: CommitFilter(author: "ünïcödé <zoe")).count == 5)
        #expect(try MirrorReader(path: store.path).commits(matching: CommitFilter(author: "ADA@EXAMPLE")).count == 5)
        #expect(try MirrorReader(path: store.path).commits(matching: CommitFilter(author: "lovelace <ada")).count == 5)
        #expect(try MirrorReader(path: store.path).commits(matching: CommitFilter(author: "nobody")).isEmpty)
        #expect(
            try MirrorReader(path: store.path).commits(matching: CommitFilter(committer: "github")).map(\.subject) == [
                "Merge pull request #1 from ada/fix"
            ])
    }

    // MARK: - Other filters

    @Test func mergesAreCountedByParents() throws {
        #expect(try subjects(CommitFilter(merges: .only)) == ["Merge pull request #1 from ada/fix"])
        #expect(try subjects(CommitFilter(merges: .exclude)).count == Self.messages.count - 1)
        // The seed's filter: fixes that are not merge pull requests.
        #expect(try subjects(CommitFilter(grep: "fix", merges: .exclude)).count == 3)
    }

    @Test func sinceAndUntilAreInclusiveOnCommitterDates() throws {
        let since = ISO8601Timestamp.parse("2024-01-03T12:00:00Z")!
        let until = ISO8601Timestamp.parse("2024-01-05T12:00:00Z")!
        let dates = try MirrorReader(path: store.path).commits(matching: CommitFilter(since: since, until: until)).map(\.committer.date)
        #expect(dates == ["2024-01-05T12:00:00Z", "2024-01-04T12:00:00Z", "2024-01-03T12:00:00Z"])
        let day = try DateExpression.parse("2024-01-04", bound: .lower, timeZone: TimeZone(identifier: "UTC")!)
        let dayEnd = try DateExpression.parse("2024-01-04", bound: .upper, timeZone: TimeZone(identifier: "UTC")!)
        #expect(
            try MirrorReader(path: store.path).commits(matching: CommitFilter(since: day, until: dayEnd)).map(\.committer.date) == [
                "2024-01-04T12:00:00Z"
            ])
    }

    @Test func limitKeepsTheNewestAndZeroKeepsNone() throws {
        #expect(
            try MirrorReader(path: store.path).commits(matching: CommitFilter(limit: 2)).map(\.committer.date) == [
                "2024-01-10T12:00:00Z", "2024-01-09T12:00:00Z",
            ])
        #expect(try MirrorReader(path: store.path).commits(matching: CommitFilter(limit: 0)).isEmpty)
    }

    @Test func repositoryFilterKeepsItsCommits() throws {
        let shared = QueryFixtures.payload(sha: QueryFixtures.sha(1), message: "'; DROP TABLE commits; --", date: "2024-01-01T12:00:00Z")
        try QueryFixtures.fill(store, [shared], repository: "fork/r")
        let fork = RepositoryName(owner: "fork", name: "r")
        #expect(try MirrorReader(path: store.path).commits(matching: CommitFilter(repository: fork)).map(\.sha) == [QueryFixtures.sha(1)])
        #expect(
            try MirrorReader(path: store.path).commits(matching: CommitFilter(repository: fork)).first?.repositories == ["fork/r", "o/r"])
        #expect(
            try MirrorReader(path: store.path).commits(matching: CommitFilter(repository: RepositoryName(owner: "o", name: "r"))).count
                == Self.messages.count)
        #expect(
            try MirrorReader(path: store.path).commits(matching: CommitFilter(repository: RepositoryName(owner: "x", name: "y"))).isEmpty)
    }

    @Test func rowsCarryEverythingTheFormatsPrint() throws {
        let merge = try #require(MirrorReader(path: store.path).commits(matching: CommitFilter(merges: .only)).first)
        #expect(merge.sha == QueryFixtures.sha(4))
        #expect(merge.parents == [QueryFixtures.sha(3), QueryFixtures.sha(100)])
        #expect(merge.isMerge)
        #expect(merge.author.name == "Ada Lovelace")
        #expect(merge.committer.name == "GitHub")
        #expect(merge.url == "https://github.com/o/r/commit/\(QueryFixtures.sha(4))")
        #expect(merge.repositories == ["o/r"])
        #expect(merge.message == "Merge pull request #1 from ada/fix\n\nfix things")
    }

    // MARK: - The message index

    /// The upsert path (insert, or update when changed) keeps the index exact.
    @Test func messageIndexFollowsUpdates() throws {
        // The commit that said "'; DROP TABLE commits; --" (the fifth newest).
        let sha = QueryFixtures.sha(6)
        #expect(try grep("DROP TABLE").count == 1)
        let edited = QueryFixtures.payload(sha: sha, message: "Reworded completely", date: "2024-01-06T12:00:00Z")
        try QueryFixtures.fill(store, [edited], repository: "o/r")
        #expect(try grep("DROP TABLE").isEmpty)
        #expect(try grep("reworded") == ["Reworded completely"])
        #expect(try grep("'", invert: true).contains("Reworded completely"))
        // Same message, other change (date): the index entry stays right.
        let redated = QueryFixtures.payload(sha: sha, message: "Reworded completely", date: "2024-01-06T13:00:00Z")
        try QueryFixtures.fill(store, [redated], repository: "o/r")
        #expect(try grep("reworded") == ["Reworded completely"])
        // FTS5's own check, comparing the index with the commits table.
        try store.db.execute("INSERT INTO commits_fts (commits_fts, rank) VALUES ('integrity-check', 1)")
        try store.db.execute("DELETE FROM commits WHERE sha = ?", [sha])
        #expect(try grep("reworded").isEmpty)
        try store.db.execute("INSERT INTO commits_fts (commits_fts, rank) VALUES ('integrity-check', 1)")
        try expectAuthorCountsExact()
    }

    /// `author_commit_counts` always equals counting the commits.
    func expectAuthorCountsExact(sourceLocation: SourceLocation = #_sourceLocation) throws {
        let kept = try store.db.prepare("SELECT author_id, commits FROM author_commit_counts WHERE commits > 0 ORDER BY author_id")
            .map { [$0.int(0), $0.int(1)] }
        let counted = try store.db.prepare("SELECT author_id, count(*) FROM commits GROUP BY author_id ORDER BY author_id")
            .map { [$0.int(0), $0.int(1)] }
        #expect(kept == counted, sourceLocation: sourceLocation)
    }

    @Test func authorCountsFollowInsertsUpdatesAndDeletes() throws {
        try expectAuthorCountsExact()
        // The upsert's update path moves a commit to another author.
        let moved = QueryFixtures.payload(
            sha: QueryFixtures.sha(3), message: Self.messages[7],
            author: ("Someone Else", "else@example.com"), date: "2024-01-03T12:00:00Z")
        try QueryFixtures.fill(store, [moved], repository: "o/r")
        try expectAuthorCountsExact()
        guard case .found(let detail) = try MirrorReader(path: store.path).resolveCommit(QueryFixtures.sha(3)) else {
            Issue.record("moved commit not found")
            return
        }
        #expect(detail.authorPosition == 1 && detail.authorCommitCount == 1)
        try store.db.execute("DELETE FROM commits WHERE sha = ?", [QueryFixtures.sha(8)])
        try expectAuthorCountsExact()
        guard case .found(let ada) = try MirrorReader(path: store.path).resolveCommit(QueryFixtures.sha(10)) else {
            Issue.record("newest commit not found")
            return
        }
        #expect(ada.authorPosition == 4 && ada.authorCommitCount == 4)
    }

    /// Migration 2 indexes the messages a version-1 store already holds.
    @Test func migrationIndexesExistingStores() throws {
        let path = directory.path("old.sqlite")
        do {
            let connection = try Connection(path: path)
            try Migrator(Array(Schema.migrator.migrations.prefix(1))).migrate(connection)
            try connection.execute(
                "INSERT INTO authors (name, email, search_text) VALUES ('Old Timer', 'old@example.com', 'old timer <old@example.com>')")
            for (n, message) in ["Fix the old bug", "Unrelated", "Prefix only"].enumerated() {
                try connection.execute(
                    """
                    INSERT INTO commits (sha, message, author_id, author_date, committer_id, committer_date, parent_count)
                    VALUES (?, ?, 1, ?, 1, ?, 0)
                    """, [QueryFixtures.sha(n + 1), message, "2020-01-0\(n + 1)T00:00:00Z", "2020-01-0\(n + 1)T00:00:00Z"])
            }
            try connection.close()
        }
        // A reader cannot migrate: it says what to do.
        #expect {
            _ = try MirrorReader(path: path)
        } throws: { error in
            "\(error)".contains("needs a schema upgrade")
        }
        let upgraded = try MirrorStore(path: path)
        #expect(
            try MirrorReader(path: upgraded.path).commits(matching: CommitFilter(grep: "fix")).map(\.subject) == [
                "Prefix only", "Fix the old bug",
            ])
        #expect(try upgraded.db.scalarInt("SELECT max(version) FROM schema_migrations") == Schema.migrator.latestVersion)
        #expect(try upgraded.db.scalarInt("SELECT commits FROM author_commit_counts WHERE author_id = 1") == 3)
        try upgraded.db.execute("INSERT INTO commits_fts (commits_fts, rank) VALUES ('integrity-check', 1)")
    }

    // MARK: - show

    @Test func prefixesResolveOrReportAmbiguity() throws {
        guard case .found(let detail) = try MirrorReader(path: store.path).resolveCommit(QueryFixtures.sha(4)) else {
            Issue.record("full sha not found")
            return
        }
        #expect(detail.commit.subject == "Merge pull request #1 from ada/fix")
        #expect(detail.authorCommitCount == 5)
        // Ada's commits are days 10, 8, 6, 4, 2: day 4 is her second.
        #expect(detail.authorPosition == 2)
        guard case .ambiguous(let candidates, let total) = try MirrorReader(path: store.path).resolveCommit("0000") else {
            Issue.record("0000 should be ambiguous")
            return
        }
        #expect(total == Self.messages.count)
        #expect(candidates.count == CommitResolution.ambiguityListLimit)
        #expect(try MirrorReader(path: store.path).resolveCommit("ffff") == .notFound)
        #expect(try MirrorReader(path: store.path).resolveCommit(String(QueryFixtures.sha(4).uppercased())) == .found(detail))
        #expect(
            CommitResolution.isCommitPrefix("abcd") && !CommitResolution.isCommitPrefix("abc") && !CommitResolution.isCommitPrefix("xyz1"))
    }
}
