import Foundation
import GitHash
import Testing

@testable import MirrorCore

@Suite struct GitCommitObjectTests {
    static let tree = "4b825dc642cb6eb9a060e54bf8d69288fbe4904b"
    static let parentA = "1111111111111111111111111111111111111111"
    static let parentB = "2222222222222222222222222222222222222222"
    static let id = ObjectID(hex: String(repeating: "0", count: 40))!

    func parse(_ bytes: [UInt8]) throws -> GitCommitObject {
        try GitCommitObject(parsing: bytes, id: Self.id)
    }

    @Test func headersParentsAndSignedCommits() throws {
        let text = """
            tree \(Self.tree)
            parent \(Self.parentA)
            parent \(Self.parentB)
            author Ada Lovelace <ada@example.com> 1700000000 +0530
            committer Grace Hopper <grace@example.com> 1700003600 -0800
            mergetag object \(Self.parentB)
             type commit
             tag v1.0
             tagger T <t@example.com> 1700000000 +0000
             \("")
             the tag's message
            gpgsig -----BEGIN PGP SIGNATURE-----
             \("")
             iQEzBAABCAAdFiEE
             author Mallory <mallory@example.com> 1 +0000
             -----END PGP SIGNATURE-----

            Subject line

            Body, with a trailing newline.

            """
        let commit = try parse(Array(text.utf8))
        #expect(commit.tree.hex == Self.tree)
        #expect(commit.parents.map(\.hex) == [Self.parentA, Self.parentB])
        #expect(
            commit.author == GitIdentityLine(name: "Ada Lovelace", email: "ada@example.com", time: 1_700_000_000, utcOffsetMinutes: 330))
        #expect(
            commit.committer
                == GitIdentityLine(name: "Grace Hopper", email: "grace@example.com", time: 1_700_003_600, utcOffsetMinutes: -480))
        #expect(commit.message == "Subject line\n\nBody, with a trailing newline.\n")

        let mirrored = Commit(commit, id: Self.id, htmlURLPrefix: "https://github.com/o/r")
        #expect(mirrored.message == "Subject line\n\nBody, with a trailing newline.")
        #expect(ISO8601Timestamp.format(mirrored.author.date) == "2023-11-14T22:13:20Z")
        #expect(ISO8601Timestamp.format(mirrored.committer.date) == "2023-11-14T23:13:20Z")
        #expect(mirrored.author.identity.login == nil && mirrored.committer.identity.login == nil)
        #expect(mirrored.htmlURL == "https://github.com/o/r/commit/\(Self.id.hex)")
        #expect(mirrored.treeSHA == Self.tree)
    }

    /// `encoding` applies to names and message; invalid bytes become U+FFFD.
    @Test func declaredEncodingIsTranscoded() throws {
        var bytes =
            Array("tree \(Self.tree)\nauthor Jos".utf8) + [0xE9]
            + Array(" <j@example.com> 1 +0000\ncommitter C <c@example.com> 2 +0000\nencoding ISO-8859-1\n\nCaf".utf8) + [0xE9]
        #expect(try parse(bytes).author.name == "José")
        #expect(try parse(bytes).message == "Café")
        bytes =
            Array(
                "tree \(Self.tree)\nauthor A <a@example.com> 1 +0000\ncommitter C <c@example.com> 2 +0000\nencoding windows-1252\n\n".utf8)
            + [0x80, 0x20, 0x81]
        #expect(try parse(bytes).message == "€ \u{FFFD}")
        // No declared encoding: UTF-8, invalid bytes replaced.
        bytes =
            Array("tree \(Self.tree)\nauthor A <a@example.com> 1 +0000\ncommitter C <c@example.com> 2 +0000\n\nna".utf8) + [
                0xEF, 0x76, 0x65,
            ]
        #expect(try parse(bytes).message == "na\u{FFFD}ve")
        // An encoding iconv does not know: the bytes as UTF-8, as git shows them.
        bytes = Array(
            "tree \(Self.tree)\nauthor A <a@example.com> 1 +0000\ncommitter C <c@example.com> 2 +0000\nencoding no-such-thing\n\nok ✓".utf8)
        #expect(try parse(bytes).message == "ok ✓")
    }

    @Test func messageEdgeCases() throws {
        let head = "tree \(Self.tree)\nauthor A <a@example.com> 1 +0000\ncommitter C <c@example.com> 2 +0000\n"
        #expect(try parse(Array((head + "\nno newline").utf8)).message == "no newline")
        #expect(try parse(Array(head.utf8)).message == "")
        #expect(try parse(Array((head + "\n").utf8)).message == "")
        let object = try parse(Array((head + "\nsubject\n\n\n").utf8))
        #expect(Commit(object, id: Self.id, htmlURLPrefix: nil).message == "subject")
    }

    @Test func identitiesAsGitSplitsThem() throws {
        func identity(_ line: String) throws -> GitIdentityLine {
            try parse(Array("tree \(Self.tree)\nauthor \(line)\ncommitter C <c@example.com> 2 +0000\n\n".utf8)).author
        }
        #expect(try identity("Name   <e@x> 5 -0030") == GitIdentityLine(name: "Name", email: "e@x", time: 5, utcOffsetMinutes: -30))
        #expect(try identity("<e@x> 5 +0000").name == "")
        #expect(try identity("N <e@x> 0 +0000") == GitIdentityLine(name: "N", email: "e@x", time: 0, utcOffsetMinutes: 0))
        // Issue #25 item 6: what git would show as `<>` or at the epoch is refused, never stored invented.
        for (line, problem) in [
            ("N <e@x>", "has no date"), ("N <e@x> not-a-date +0100", "has no date"),
            ("N <e@x> 99999999999999999999999 +0100", "has a date after the year 9999"),
            ("no brackets at all", "has no <email>"), ("N e@x> 5 +0000", "has no <email>"), ("N <e@x 5 +0000", "has no <email>"),
        ] {
            #expect(throws: GitError.malformedCommit(sha: Self.id.hex, detail: "its author line \(problem)"), "\(line)") {
                try identity(line)
            }
        }
        // The date follows the last '>', the email ends at the first.
        #expect(try identity("N <a>b> 7 +0200") == GitIdentityLine(name: "N", email: "a", time: 7, utcOffsetMinutes: 120))
    }

    @Test func structureErrors() {
        let good = "author A <a@example.com> 1 +0000\ncommitter C <c@example.com> 2 +0000\n\nm"
        for bad in [
            "", "tree xyz\n" + good, "parent \(Self.parentA)\ntree \(Self.tree)\n" + good,
            "tree \(Self.tree)\nparent 12345\n" + good,
            "tree \(Self.tree)\ncommitter C <c@example.com> 2 +0000\n\nm",
            "tree \(Self.tree)\nauthor A <a@example.com> 1 +0000\n\nm",
        ] {
            #expect(throws: GitError.self, "\(bad)") { try parse(Array(bad.utf8)) }
        }
    }
}

@Suite struct GitCredentialsTests {
    static let token = GitHubToken(value: "ghp_secret", source: "test")

    @Test(arguments: [
        ("https://api.github.com", "https://github.com/o/r.git", true),
        ("https://api.github.com/", "https://github.com/o/r.git", true),
        ("https://api.github.com", "https://GitHub.com/o/r.git", true),
        ("https://api.github.com", "http://github.com/o/r.git", false),  // no token in clear text
        ("https://api.github.com", "https://github.com:8443/o/r.git", false),
        ("https://api.github.com", "https://gitlab.com/o/r.git", false),
        ("https://api.github.com", "https://api.github.com/o/r.git", false),
        ("https://api.github.com", "https://evil.example/github.com/o/r.git", false),
        ("https://api.github.com", "https://github.com.evil.example/o/r.git", false),
        ("https://api.github.com", "https://user@github.com/o/r.git", false),
        ("https://ghe.example/api/v3", "https://ghe.example/o/r.git", true),
        ("https://ghe.example/api/v3", "http://ghe.example/o/r.git", false),
        ("https://ghe.example/api/v3", "https://other.example/o/r.git", false),
        ("https://ghe.example/api", "https://ghe.example/o/r.git", false),
        ("http://127.0.0.1:8080", "http://127.0.0.1:8080/o/r.git", true),
        ("http://127.0.0.1:8080", "http://127.0.0.1:9090/o/r.git", false),
        ("http://127.0.0.1:8080", "http://localhost:8080/o/r.git", false),
        ("http://localhost:8080", "http://localhost:8080/o/r.git", true),
        ("http://ghe.example/api/v3", "http://ghe.example/o/r.git", true),  // plain http only because the API is
        ("https://api.example.com", "https://example.com/o/r.git", false),
        ("not a url", "https://github.com/o/r.git", false),
        ("https://api.github.com", "file:///etc/passwd", false),
    ])
    func whoReceivesTheToken(apiURL: String, cloneURL: String, receives: Bool) {
        let credentials = GitCredentials.forClone(url: cloneURL, apiURL: apiURL, token: Self.token)
        #expect((credentials != nil) == receives)
        if let credentials {
            #expect(credentials.authorization == "Basic " + Data("x-access-token:ghp_secret".utf8).base64EncodedString())
            #expect(!"\(credentials)".contains("ghp_secret") && !String(reflecting: credentials).contains("ghp_secret"))
        }
    }

    @Test func noTokenNoCredentials() {
        #expect(GitCredentials.forClone(url: "https://github.com/o/r.git", apiURL: "https://api.github.com", token: nil) == nil)
    }
}
