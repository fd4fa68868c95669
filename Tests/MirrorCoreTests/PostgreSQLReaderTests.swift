import Foundation
import MirrorPostgreSQL
import MirrorTestSupport
import PostgreSQL
import Testing
@testable import MirrorCore
@testable import MirrorSQLite

/// The PostgreSQL store's reader against a SQLite store given the same commits
/// through the same writer protocol: `--grep` on the characters whose folding
/// differs between ASCII, Unicode and SQLite's trigram index, and the schema
/// checks a reader makes when it opens a store.
@Suite struct PostgreSQLReaderTests {
    init() {
        TestStoreDrivers.register()
    }

    /// Messages holding what folds in surprising ways: KELVIN SIGN and LONG S
    /// (which SQLite's index folds to ASCII), final sigma, OHM and ANGSTROM SIGN,
    /// sharp s and its capital, dotted and dotless i, title-case digraphs,
    /// ligatures, full-width letters, scripts whose case is recent, emoji and
    /// the characters LIKE and regular expressions treat as syntax.
    static let messages = [
        "Kelvin \u{212A} at 300", "kelvin ok", "KELVIN", "Stra\u{17F}\u{17F}e", "Straße", "STRASSE", "ſoft", "ΣΊΣΥΦΟΣ",
        "σίσυφος", "σίσυφοσ", "École", "ÉCOLE", "école", "ECOLE", "Groß", "GROẞ", "GROSS", "Ω capital", "Ω ohm", "ω small",
        "Å capital", "Å angstrom", "å small", "İstanbul", "istanbul", "ıstanbul", "ISTANBUL", "ǅ title", "ǆ small",
        "Ǆ capital", "ﬁle", "FILE", "ＡＢＣ", "ａｂｃ", "Ꭰ cherokee", "ꭰ cherokee", "Ა georgian", "ა georgian", "ϐeta",
        "βeta", "ΒETA", "µ micro", "μ mu", "emoji 😀🎉 done", "100% of", "of_it", "a \\ backslash", "[a-z]+", "a.b",
        "x*y and ^$", "naïve", "cafe\u{301}", "café", "\u{FFFE} nonchar", "\u{FFFD} replacement", "plain text",
    ]

    static let needles = [
        "k", "K", "kelvin", "KELVIN", "\u{212A}", "\u{212A}elvin", "s", "ſ", "strasse", "STRAẞE", "straße", "ſoft", "SOFT",
        "σ", "Σ", "ς", "σίσυφος", "ΣΊΣΥΦΟΣ", "σίσυφοσ", "é", "É", "école", "ÉCOLE", "ß", "ẞ", "groß", "GROẞ", "Ω", "ω", "Ω",
        "ωω", "Ω o", "Å", "Å", "å angstrom", "Å c", "İ", "ı", "i", "I", "istanbul", "İSTANBUL", "ıstanbul", "ǅ", "ǆ", "Ǆ",
        "ǅ t", "Ǆ t", "ﬁ", "ﬁle", "FILE", "ａｂｃ", "ＡＢＣ", "ꭰ", "Ꭰ", "Ꭰ c", "ꭰ c", "ა", "Ა", "Ა g", "ა g", "ϐet", "βET",
        "µ m", "Μ m", "μ m", "😀", "😀🎉", "%", "_", "\\", "[a-z]", "a.b", "x*y", "^$", "e\u{301}", "café", "CAFÉ", "naïve",
        "NAÏVE", "\u{FFFD} n", "\u{FFFE} n", "\u{FFFD}", "", "zz",
    ]

    /// Both stores, filled through `MirrorWriter` with one commit per message.
    static func stores() async throws -> (sqlite: any MirrorReading, postgreSQL: any MirrorReading, TemporaryDirectory) {
        let directory = try TemporaryDirectory()
        let server = try await PostgreSQLServer.shared()
        let locations = [StoreLocation.sqliteFile(directory.path("s.sqlite")), .postgreSQL(try server.createDatabase())]
        let commits = messages.enumerated().map { index, message in
            let identity = Identity(name: "Person \(index % 3)", email: "p\(index % 3)@example.com")
            return Commit(
                sha: QueryFixtures.sha(index + 1), message: message,
                author: Signature(identity: identity, date: Date(timeIntervalSince1970: 1_700_000_000 + Double(index / 2) * 60)),
                committer: Signature(identity: identity, date: Date(timeIntervalSince1970: 1_700_000_000 + Double(index / 2) * 60)),
                parents: [])
        }
        for location in locations {
            let writer = try location.openSyncWriter()
            let repository = try writer.adopt(
                RepositoryIdentity(
                    githubID: 42, fullName: RepositoryName(parsing: "acme/folds")!, defaultBranch: "main", htmlURL: nil),
                requestedAs: RepositoryName(parsing: "acme/folds")!)
            try await writer.withBatches(limits: BatchLimits()) { batches in
                _ = try batches.storeFromGit(commits, repositoryID: repository.id)
            }
        }
        return (try locations[0].openCommitReader(), try locations[1].openCommitReader(), directory)
    }

    @Test func grepFindsTheSameCommitsInBothStores() async throws {
        let (sqlite, postgreSQL, directory) = try await Self.stores()
        _ = directory
        #expect(try sqlite.matchingCommits(CommitFilter()).count == Self.messages.count)
        var filters = Self.needles.map { CommitFilter(grep: $0) }
        filters += Self.needles.map { CommitFilter(grep: $0, invertGrep: true) }
        var allMatch = CommitFilter(grep: "é")
        allMatch.greps.append("ÉCOLE")
        allMatch.allMatch = true
        filters.append(allMatch)
        for filter in filters {
            let expected = try sqlite.matchingCommits(filter).map(\.sha)
            #expect(try postgreSQL.matchingCommits(filter).map(\.sha) == expected, "\(filter.greps) invert \(filter.invertGrep)")
        }
    }

    /// What commitsd reads at start and after each sync (`branchHeads`,
    /// `committerDate`) is the same from both stores: active repositories only,
    /// a branch without a head, a head's committer date, an unknown sha.
    @Test func commitsdsActivityReadsAreTheSameFromBothStores() async throws {
        let directory = try TemporaryDirectory()
        let server = try await PostgreSQLServer.shared()
        let locations = [StoreLocation.sqliteFile(directory.path("a.sqlite")), .postgreSQL(try server.createDatabase())]
        let commits = (1...3).map { index in
            let signature = Signature(
                identity: Identity(name: "Ada", email: "ada@example.com"),
                date: Date(timeIntervalSince1970: 1_700_000_000 + Double(index) * 3600))
            return Commit(
                sha: QueryFixtures.sha(index), message: "change \(index)", author: signature, committer: signature,
                parents: index == 1 ? [] : [QueryFixtures.sha(index - 1)])
        }
        var answers: [[String]] = []
        for location in locations {
            let writer = try location.openSyncWriter()
            func adopt(_ name: String, id: Int) throws -> StoredRepository {
                try writer.adopt(
                    RepositoryIdentity(githubID: id, fullName: RepositoryName(parsing: name)!, defaultBranch: "main", htmlURL: nil),
                    requestedAs: RepositoryName(parsing: name)!)
            }
            let active = try adopt("acme/active", id: 51)
            let gone = try adopt("acme/gone", id: 52)
            for repository in [active, gone] {
                try await writer.withBatches(limits: BatchLimits()) { batches in
                    _ = try batches.storeFromGit(commits, repositoryID: repository.id)
                }
            }
            // A success is recorded on the row its attempt made.
            for (repository, branch) in [(active, "main"), (active, "empty"), (gone, "main")] {
                try writer.recordAttempt(repositoryID: repository.id, branch: branch)
            }
            try writer.recordSuccess(
                repositoryID: active.id, branch: "main", headSHA: QueryFixtures.sha(2), headETag: nil, complete: true, rateLimit: nil)
            try writer.recordSuccess(
                repositoryID: active.id, branch: "empty", headSHA: nil, headETag: nil, complete: true, rateLimit: nil)
            try writer.recordSuccess(
                repositoryID: gone.id, branch: "main", headSHA: QueryFixtures.sha(3), headETag: nil, complete: true, rateLimit: nil)
            try writer.setState(.gone, repositoryID: gone.id, reason: "GitHub answers 404 for it")
            let reader = try location.openCommitReader()
            let heads = try reader.branchHeads().map {
                "\($0.repository) \($0.branch) \($0.head ?? "-") \($0.committedAt.map(ISO8601Timestamp.format) ?? "-")"
            }
            let dates = try [QueryFixtures.sha(3), String(repeating: "f", count: 40)].map {
                try reader.committerDate(ofCommit: $0).map(ISO8601Timestamp.format) ?? "-"
            }
            answers.append(heads.sorted() + dates)
        }
        let second = ISO8601Timestamp.format(commits[1].committer.date)
        #expect(
            answers[0] == [
                "acme/active empty - -", "acme/active main \(QueryFixtures.sha(2)) \(second)",
                ISO8601Timestamp.format(commits[2].committer.date), "-",
            ])
        #expect(answers[1] == answers[0])
    }

    @Test func aReaderRefusesANewerSchema() async throws {
        let server = try await PostgreSQLServer.shared()
        let uri = try server.createDatabase()
        _ = try StoreLocation.postgreSQL(uri).openSyncWriter()
        try server.execute(
            "INSERT INTO commits_mirror_schema (version, name) VALUES (999, 'from the future')",
            database: String(uri.split(separator: "/").last!))
        #expect {
            _ = try StoreLocation.postgreSQL(uri).openCommitReader()
        } throws: { error in
            "\(error)".hasPrefix("the store \(uri) has schema version 999, newer than this program knows")
        }
    }
}
