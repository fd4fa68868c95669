import Foundation
import MirrorTestSupport
import Testing

/// `query --grep` with a very long literal answers alike on both stores. PostgreSQL matches
/// a needle as a regular expression of its case forms and refused 100,000 scalars of it as
/// too complex (SQLSTATE 2201B) where SQLite answered 0 rows; now either store refuses a
/// needle over `CommitFilter.longestGrep` scalars in the same one line, and one of that
/// length (the costliest forms: `k` has three) finds the one commit holding it on both.
@Suite struct LongGrepCLITests {
    @Test func aVeryLongGrepIsRefusedAlikeAndTheLongestAllowedMatchesAlike() async throws {
        let directory = try TemporaryDirectory()
        let unit = "Kelvin kinks École naïve "
        let message = "Long message\n\n" + String(repeating: unit, count: 60)
        let commit: [String: Any] = [
            "sha": String(repeating: "ab", count: 20),
            "commit": [
                "author": ["name": "A U Thor", "email": "a@example.com", "date": "2024-01-02T03:04:05Z"],
                "committer": ["name": "A U Thor", "email": "a@example.com", "date": "2024-01-02T03:04:05Z"],
                "message": message,
            ],
            "parents": [],
        ]
        let pages = directory.path("pages.json")
        try JSONSerialization.data(withJSONObject: [commit]).write(to: URL(fileURLWithPath: pages))
        let stores = [directory.path("commits.sqlite"), try await PostgreSQLServer.shared().createDatabase()]
        for store in stores {
            let imported = try await run("commitsctl", ["import", "acme/widgets", pages, "--db", store])
            #expect(imported.status == 0, "\(store): \(imported.stderr)")
        }
        // Exactly the longest needle allowed, in other case forms than the message's.
        let scalars = Array(String(repeating: unit, count: 60).dropFirst(3).unicodeScalars.prefix(1000))
        let needle = String(String.UnicodeScalarView(scalars)).uppercased()
        #expect(needle.unicodeScalars.count == 1000)
        let tooLong = String(repeating: "x", count: 100_000)
        var answers: [(found: String, refused: String)] = []
        for store in stores {
            let found = try await run("commitsctl", ["query", "--grep", needle, "--format", "oneline", "--db", store])
            #expect(found.status == 0 && found.lines.count == 1, "\(store): \(found.stdout) \(found.stderr)")
            // Every scalar a bracket of three forms (k, K, KELVIN SIGN): the costliest pattern allowed.
            let costliest = try await run("commitsctl", ["query", "--grep", String(repeating: "k", count: 1000), "--db", store])
            #expect(costliest.status == 0 && costliest.stdout.isEmpty, "\(store): \(costliest.stderr)")
            let refused = try await run("commitsctl", ["query", "--grep", tooLong, "--db", store])
            #expect(refused.status == 64, "\(store): \(refused.stderr)")
            #expect(
                refused.stderr
                    == "commitsctl: error: --grep is 100000 characters long; at most 1000 are searched for: give a shorter part of the text\n"
            )
            answers.append((found.stdout, refused.stderr))
        }
        #expect(answers[0].found == answers[1].found && answers[0].refused == answers[1].refused)
    }
}
