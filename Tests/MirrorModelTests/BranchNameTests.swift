import MirrorTestSupport
import Foundation
import Testing
import MirrorModel

/// Branch names follow `git check-ref-format --branch`; repository names
/// refuse `.` and `..` in both halves.
@Suite struct BranchNameTests {
    static let names = [
        "main", "feature/x", "release/1.0", "a.lock.x", "ünïcödé", "a@b", "a/@/b", "@@", "{", "a}", "v1.2.3",
        "refs/heads/x", "x-y_z", "a+b", "a,b",
        "", "..", "a..b", ".a", "a/.b", "a.lock", "a/b.lock/c", ".lock", "/a", "a/", "a//b", "a@{b", "@{-1}",
        "HEAD", "-a", "a.", "x/a.", "x/.", "a b", "a~b", "a^", "a:b", "a?", "a*", "a[b", "a\\b",
        "a\u{7F}b", "a\tb", "a\nb", "a\u{1}b",
    ]

    /// `git check-ref-format --branch NAME` accepts it (run outside any repository).
    static func gitAccepts(_ name: String) async throws -> Bool {
        try await runProgram(
            "/usr/bin/env", ["git", "-C", "/", "check-ref-format", "--branch", name], environment: ["GIT_CEILING_DIRECTORIES": "/"]
        ).status == 0
    }

    @Test(arguments: names)
    func agreesWithGit(name: String) async throws {
        let accepted = try await Self.gitAccepts(name)
        let problem = BranchName.problem(with: name)
        #expect(
            (problem == nil) == accepted, "git \(accepted ? "accepts" : "refuses") \(BranchName.quoted(name)); ours: \(problem ?? "valid")")
    }

    /// Stricter than git on purpose: git reads a lone `@` as HEAD (and accepts it).
    @Test func aLoneAtSignIsRefused() {
        #expect(BranchName.problem(with: "@") != nil)
    }

    @Test func quotingKeepsMessagesOnOneShortLine() {
        #expect(BranchName.quoted("a\nb\u{7F}") == "'a\\u{a}b\\u{7f}'")
        let long = BranchName.quoted(String(repeating: "x", count: 500))
        #expect(long.count == 82 && long.hasSuffix("…'"))
    }

    @Test(arguments: ["./x", "../x", "./.", "../..", "o/.", "o/..", "o/.git", "o/..git"])
    func dotSegmentsAreNotRepositoryNames(text: String) {
        #expect(RepositoryName(parsing: text) == nil)
    }

    @Test(arguments: [".github/x", "a.b/c", "o/.github", "o/a..b"])
    func dotsInsideNamesAreFine(text: String) {
        #expect(RepositoryName(parsing: text)?.description == text)
    }
}
