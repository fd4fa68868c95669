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
