import MirrorTestSupport
import Foundation
import Testing

/// Issue #5 acceptance 2 and 3: golden output of every format, from the built
/// `commitsctl` run as a process on a fixed store (QueryCLIFixture).
@Suite struct QueryGoldenOutputTests {
    let directory: TemporaryDirectory
    let db: String

    init() throws {
        (directory, db) = try QueryCLIFixture.fresh("golden.sqlite")
    }

    func expectOutput(
        _ arguments: [String], columns: Int? = nil, _ expected: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let result = try await commitsctl(arguments + ["--db", db], columns: columns)
        #expect(result.status == 0, "\(result.stderr)", sourceLocation: sourceLocation)
        #expect(result.stderr == "", sourceLocation: sourceLocation)
        #expect(result.stdout == expected, sourceLocation: sourceLocation)
    }

    // MARK: - query

    @Test func onelineIsTheDefault() async throws {
        // Control characters (here an ANSI colour sequence and a tab) never reach the terminal.
        try await expectOutput(["query"], goldenOneline + "\n")
        try await expectOutput(["query", "--format", "oneline"], goldenOneline + "\n")
    }

    @Test func tableWithoutATerminalIsNotCut() async throws {
        try await expectOutput(["query", "--format", "table"], goldenTable + "\n")
    }

    @Test func tableFitsTheWidth() async throws {
        try await expectOutput(["query", "--format", "table"], columns: 50, goldenTable50 + "\n")
        let result = try await commitsctl(["query", "--format", "table", "--db", db], columns: 50)
        #expect(result.stdout.unicodeScalars.allSatisfy { $0 != "\u{1B}" })
    }

    @Test func json() async throws {
        try await expectOutput(["query", "--format", "json", "-n", "2"], goldenJSON + "\n")
        try await expectOutput(["query", "--format", "json", "--author", "nobody"], "[]\n")
    }

    @Test func ndjsonReversed() async throws {
        // --reverse applies after -n, as in git: the newest three, oldest first.
        try await expectOutput(["query", "--format", "ndjson", "--reverse", "-n", "3"], goldenNDJSON + "\n")
    }

    @Test func csv() async throws {
        try await expectOutput(["query", "--format", "csv", "--no-merges"], goldenCSV)
    }

    /// The documented fields (docs/QUERY.md), in order, in every object.
    @Test func jsonParsesAndKeepsItsDocumentedFields() async throws {
        let documented = [
            "sha", "subject", "message", "author_name", "author_email", "author_login", "author_date",
            "committer_name", "committer_email", "committer_login", "committer_date", "parents", "url", "repositories",
        ]
        let result = try await commitsctl(["query", "--format", "json", "--db", db])
        let objects = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]])
        #expect(objects.count == QueryCLIFixture.commits.count)
        for object in objects {
            #expect(Set(object.keys) == Set(documented))
        }
        #expect(objects.map { $0["sha"] as? String } == QueryCLIFixture.commits.map(\.sha))
        #expect(objects[2]["message"] as? String == QueryCLIFixture.commits[2].message)
        #expect(objects[3]["message"] as? String == QueryCLIFixture.commits[3].message)
        #expect((objects[1]["parents"] as? [String])?.count == 2)
        // Key order is part of the format.
        let firstLine = try #require(try await commitsctl(["query", "--format", "ndjson", "-n", "1", "--db", db]).lines.first)
        let positions = documented.map { firstLine.range(of: "\"\($0)\":")!.lowerBound }
        #expect(positions == positions.sorted())
        // CSV has the same columns.
        let header = try await commitsctl(["query", "--format", "csv", "-n", "0", "--db", db]).stdout
        #expect(header == documented.joined(separator: ",") + "\r\n")
        let ndjson = try await commitsctl(["query", "--format", "ndjson", "--db", db]).lines
        for line in ndjson {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            #expect(Set(object.keys) == Set(documented))
        }
    }

    // MARK: - show

    @Test func showPrintsTheFullMessageAndTheAuthorsTally() async throws {
        try await expectOutput(["show", "aaaa1"], goldenShow + "\n")
        try await expectOutput(["show", "AAAA2222"], goldenShowMerge + "\n")
        try await expectOutput(["show", "dddd", "--format", "json"], goldenShowJSON + "\n")
    }

    @Test func anAmbiguousPrefixIsReportedNotGuessed() async throws {
        let result = try await commitsctl(["show", "aaaa", "--db", db])
        #expect(result.status == 1)
        #expect(result.stdout == "")
        #expect(
            result.stderr == """
                commitsctl: error: the short sha aaaa is ambiguous: 2 commits start with it; give more digits. Candidates:
                  aaaa11111111 2024-03-05 Ada Lovelace  Fix the parser, again
                  aaaa22222222 2024-03-04 Zoë Ünïcödé  Merge pull request #7 from zoe/feature

                """)
    }

    @Test func showRefusesWhatIsNotACommit() async throws {
        let missing = try await commitsctl(["show", "eeee", "--db", db])
        #expect(missing.status == 1)
        #expect(missing.stderr == "commitsctl: error: no commit eeee in the store \(db); `commitsctl query` lists what is mirrored\n")
        let malformed = try await commitsctl(["show", "xyz'; --", "--db", db])
        #expect(malformed.status == 64)
        #expect(malformed.stderr.contains("is not a commit sha; give 4 to 40 hex digits"))
    }

    // MARK: - authors, stats

    @Test func authors() async throws {
        try await expectOutput(["authors"], goldenAuthors + "\n")
        try await expectOutput(["authors", "--format", "json", "--top", "1"], goldenAuthorsJSON + "\n")
        try await expectOutput(["authors", "--format", "csv", "--repo", "acme/fork"], goldenAuthorsCSV)
    }

    @Test func stats() async throws {
        try await expectOutput(["stats"], goldenStats + "\n")
        try await expectOutput(["stats", "--format", "ndjson"], goldenStatsJSON + "\n")
    }
}

// MARK: - Golden outputs (reviewed by hand; regenerate only for an intended change)

private let goldenOneline = #"""
    aaaa111 2024-03-05 Ada Lovelace  Fix the parser, again
    aaaa222 2024-03-04 Zoë Ünïcödé  Merge pull request #7 from zoe/feature
    bbbb333 2024-03-03 山田 太郎  日本語のコミット: 幅の広い文字
    cccc444 2024-03-02 Mallory  Sanitize �[31mred�[0m output please
    dddd555 2024-03-01 Ada Lovelace  100% literal_match with a \ backslash
    """#

private let goldenTable = #"""
    SHA      DATE        AUTHOR        SUBJECT
    aaaa111  2024-03-05  Ada Lovelace  Fix the parser, again
    aaaa222  2024-03-04  Zoë Ünïcödé   Merge pull request #7 from zoe/feature
    bbbb333  2024-03-03  山田 太郎     日本語のコミット: 幅の広い文字
    cccc444  2024-03-02  Mallory       Sanitize �[31mred�[0m output please
    dddd555  2024-03-01  Ada Lovelace  100% literal_match with a \ backslash
    """#

private let goldenTable50 = #"""
    SHA      DATE        AUTHOR        SUBJECT
    aaaa111  2024-03-05  Ada Lovelace  Fix the parser…
    aaaa222  2024-03-04  Zoë Ünïcödé   Merge pull req…
    bbbb333  2024-03-03  山田 太郎     日本語のコミッ…
    cccc444  2024-03-02  Mallory       Sanitize �[31m…
    dddd555  2024-03-01  Ada Lovelace  100% literal_m…
    """#

private let goldenJSON = #"""
    [
      {
        "sha": "aaaa111111111111111111111111111111111111",
        "subject": "Fix the parser, again",
        "message": "Fix the parser, again\n\nA body with \"quotes\", commas, and a\nsecond line.",
        "author_name": "Ada Lovelace",
        "author_email": "ada@example.com",
        "author_login": "ada",
        "author_date": "2024-03-04T22:15:00Z",
        "committer_name": "Ada Lovelace",
        "committer_email": "ada@example.com",
        "committer_login": "ada",
        "committer_date": "2024-03-05T10:00:00Z",
        "parents": ["aaaa222222222222222222222222222222222222"],
        "url": "https://github.com/acme/widgets/commit/aaaa111111111111111111111111111111111111",
        "repositories": ["acme/widgets"]
      },
      {
        "sha": "aaaa222222222222222222222222222222222222",
        "subject": "Merge pull request #7 from zoe/feature",
        "message": "Merge pull request #7 from zoe/feature\n\nAdd the feature",
        "author_name": "Zoë Ünïcödé",
        "author_email": "zoe@example.com",
        "author_login": null,
        "author_date": "2024-03-04T09:30:00Z",
        "committer_name": "GitHub",
        "committer_email": "noreply@github.com",
        "committer_login": null,
        "committer_date": "2024-03-04T09:30:00Z",
        "parents": ["bbbb333333333333333333333333333333333333", "cccc444444444444444444444444444444444444"],
        "url": "https://github.com/acme/widgets/commit/aaaa222222222222222222222222222222222222",
        "repositories": ["acme/widgets"]
      }
    ]
    """#

private let goldenNDJSON = #"""
    {"sha":"bbbb333333333333333333333333333333333333","subject":"日本語のコミット: 幅の広い文字","message":"日本語のコミット: 幅の広い文字","author_name":"山田 太郎","author_email":"taro@example.jp","author_login":"taro","author_date":"2024-03-03T08:00:00Z","committer_name":"山田 太郎","committer_email":"taro@example.jp","committer_login":"taro","committer_date":"2024-03-03T08:00:00Z","parents":["dddd555555555555555555555555555555555555"],"url":"https://github.com/acme/widgets/commit/bbbb333333333333333333333333333333333333","repositories":["acme/widgets"]}
    {"sha":"aaaa222222222222222222222222222222222222","subject":"Merge pull request #7 from zoe/feature","message":"Merge pull request #7 from zoe/feature\n\nAdd the feature","author_name":"Zoë Ünïcödé","author_email":"zoe@example.com","author_login":null,"author_date":"2024-03-04T09:30:00Z","committer_name":"GitHub","committer_email":"noreply@github.com","committer_login":null,"committer_date":"2024-03-04T09:30:00Z","parents":["bbbb333333333333333333333333333333333333","cccc444444444444444444444444444444444444"],"url":"https://github.com/acme/widgets/commit/aaaa222222222222222222222222222222222222","repositories":["acme/widgets"]}
    {"sha":"aaaa111111111111111111111111111111111111","subject":"Fix the parser, again","message":"Fix the parser, again\n\nA body with \"quotes\", commas, and a\nsecond line.","author_name":"Ada Lovelace","author_email":"ada@example.com","author_login":"ada","author_date":"2024-03-04T22:15:00Z","committer_name":"Ada Lovelace","committer_email":"ada@example.com","committer_login":"ada","committer_date":"2024-03-05T10:00:00Z","parents":["aaaa222222222222222222222222222222222222"],"url":"https://github.com/acme/widgets/commit/aaaa111111111111111111111111111111111111","repositories":["acme/widgets"]}
    """#

private let goldenShow = #"""
    commit aaaa111111111111111111111111111111111111
    Parent:     aaaa222222222222222222222222222222222222
    Author:     Ada Lovelace <ada@example.com>
    AuthorDate: 2024-03-04T22:15:00Z
    Commit:     Ada Lovelace <ada@example.com>
    CommitDate: 2024-03-05T10:00:00Z
    URL:        https://github.com/acme/widgets/commit/aaaa111111111111111111111111111111111111
    Repository: acme/widgets
    Branches:   acme/widgets: main
    By author:  commit 2 of 2 by this person (Ada Lovelace)

        Fix the parser, again

        A body with "quotes", commas, and a
        second line.
    """#

private let goldenShowMerge = #"""
    commit aaaa222222222222222222222222222222222222
    Merge:      bbbb333333333333333333333333333333333333 cccc444444444444444444444444444444444444
    Author:     Zoë Ünïcödé <zoe@example.com>
    AuthorDate: 2024-03-04T09:30:00Z
    Commit:     GitHub <noreply@github.com>
    CommitDate: 2024-03-04T09:30:00Z
    URL:        https://github.com/acme/widgets/commit/aaaa222222222222222222222222222222222222
    Repository: acme/widgets
    Branches:   acme/widgets: main
    By author:  commit 1 of 1 by this person (Zoë Ünïcödé)

        Merge pull request #7 from zoe/feature

        Add the feature
    """#

private let goldenShowJSON = #"""
    {
      "sha": "dddd555555555555555555555555555555555555",
      "subject": "100% literal_match with a \\ backslash",
      "message": "100% literal_match with a \\ backslash",
      "author_name": "Ada Lovelace",
      "author_email": "ada@example.com",
      "author_login": "ada",
      "author_date": "2024-03-01T00:00:00Z",
      "committer_name": "Ada Lovelace",
      "committer_email": "ada@example.com",
      "committer_login": "ada",
      "committer_date": "2024-03-01T00:00:00Z",
      "parents": [],
      "url": "https://github.com/acme/widgets/commit/dddd555555555555555555555555555555555555",
      "repositories": ["acme/fork", "acme/widgets"],
      "author_commit_position": 1,
      "author_commit_count": 2,
      "co_authors": [],
      "branches": {
        "acme/widgets": ["main"]
      },
      "files": null,
      "included_in": {},
      "pull_requests": []
    }
    """#

private let goldenAuthors = #"""
    COMMITS  CO-AUTHORED  FIRST       LAST        AUTHOR
          2            0  2024-03-01  2024-03-05  Ada Lovelace <ada@example.com>
          1            0  2024-03-02  2024-03-02  Mallory <m@example.com>
          1            0  2024-03-04  2024-03-04  Zoë Ünïcödé <zoe@example.com>
          1            0  2024-03-03  2024-03-03  山田 太郎 <taro@example.jp>
    """#

private let goldenAuthorsJSON = #"""
    [
      {
        "name": "Ada Lovelace",
        "emails": ["ada@example.com"],
        "commits": 2,
        "first_commit_date": "2024-03-01T00:00:00Z",
        "last_commit_date": "2024-03-05T10:00:00Z",
        "co_authored": 0,
        "identities": ["Ada Lovelace <ada@example.com>"]
      }
    ]
    """#

private let goldenStats = #"""
    REPOSITORY    COMMITS  MERGES  AUTHORS  FIRST       LAST        LAST SYNC
    acme/fork           1       0        1  2024-03-01  2024-03-01  never
    acme/widgets        5       1        4  2024-03-01  2024-03-05  2024-03-09T16:00:00Z
    """#

private let goldenStatsJSON = #"""
    {"repository":"acme/fork","commits":1,"merges":0,"authors":1,"first_commit_date":"2024-03-01T00:00:00Z","last_commit_date":"2024-03-01T00:00:00Z","last_sync_at":null}
    {"repository":"acme/widgets","commits":5,"merges":1,"authors":4,"first_commit_date":"2024-03-01T00:00:00Z","last_commit_date":"2024-03-05T10:00:00Z","last_sync_at":"2024-03-09T16:00:00Z"}
    """#

private let goldenCSV =
    [
        "sha,subject,message,author_name,author_email,author_login,author_date,committer_name,committer_email,committer_login,committer_date,parents,url,repositories",
        "aaaa111111111111111111111111111111111111,\"Fix the parser, again\",\"Fix the parser, again\n\nA body with \"\"quotes\"\", commas, and a\nsecond line.\",Ada Lovelace,ada@example.com,ada,2024-03-04T22:15:00Z,Ada Lovelace,ada@example.com,ada,2024-03-05T10:00:00Z,aaaa222222222222222222222222222222222222,https://github.com/acme/widgets/commit/aaaa111111111111111111111111111111111111,acme/widgets",
        "bbbb333333333333333333333333333333333333,日本語のコミット: 幅の広い文字,日本語のコミット: 幅の広い文字,山田 太郎,taro@example.jp,taro,2024-03-03T08:00:00Z,山田 太郎,taro@example.jp,taro,2024-03-03T08:00:00Z,dddd555555555555555555555555555555555555,https://github.com/acme/widgets/commit/bbbb333333333333333333333333333333333333,acme/widgets",
        "cccc444444444444444444444444444444444444,Sanitize \u{1B}[31mred\u{1B}[0m output\tplease,Sanitize \u{1B}[31mred\u{1B}[0m output\tplease,Mallory,m@example.com,,2024-03-02T12:00:00Z,Mallory,m@example.com,,2024-03-02T12:00:00Z,dddd555555555555555555555555555555555555,https://github.com/acme/widgets/commit/cccc444444444444444444444444444444444444,acme/widgets",
        "dddd555555555555555555555555555555555555,100% literal_match with a \\ backslash,100% literal_match with a \\ backslash,Ada Lovelace,ada@example.com,ada,2024-03-01T00:00:00Z,Ada Lovelace,ada@example.com,ada,2024-03-01T00:00:00Z,,https://github.com/acme/widgets/commit/dddd555555555555555555555555555555555555,acme/fork acme/widgets",
    ].joined(separator: "\r\n") + "\r\n"

private let goldenAuthorsCSV =
    [
        "name,emails,commits,first_commit_date,last_commit_date,co_authored,identities",
        "Ada Lovelace,ada@example.com,1,2024-03-01T00:00:00Z,2024-03-01T00:00:00Z,0,Ada Lovelace <ada@example.com>",
    ].joined(separator: "\r\n") + "\r\n"
