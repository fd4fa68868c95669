import MirrorTestSupport
import Foundation
import Testing
@testable import MirrorCore
@testable import MirrorSQLite
import SQLite

/// Issue #16 acceptance 1: `query` selects the same commits as `git log` on a
/// repository built from the same history, for git log's habits.
@Suite struct GitLogParityTests {
    let directory: TemporaryDirectory
    let repository: String
    var db: String { directory.path("commits.sqlite") }

    static let people = [
        ("Ada Lovelace", "ada@example.com"), ("Grace Hopper", "grace@navy.example"),
        ("Alan Turing", "alan@example.org"), ("Katherine Johnson", "kj@nasa.example"),
    ]
    static let subjects = [
        "fix the parser", "add docs for the cli", "refactor parser tables", "docs: fix typo",
        "speed up the sync", "fix crash in sync", "update readme", "parser: handle tabs",
    ]

    /// Builds a linear git history of 90 commits, one every 7 hours back from
    /// now (offset half an hour, so no relative date lands on one), and the
    /// same history in a store.
    init() async throws {
        directory = try TemporaryDirectory()
        repository = directory.path("repo")
        try FileManager.default.createDirectory(atPath: repository, withIntermediateDirectories: true)
        _ = try await git(["init", "-q", "-b", "main"])
        let now = Date().timeIntervalSince1970
        for index in (0..<90).reversed() {
            let author = Self.people[index % Self.people.count]
            let committer = Self.people[(index / 3) % Self.people.count]
            let date = "@\(Int(now) - index * 7 * 3600 - 1800) +0000"
            let message = "\(Self.subjects[(index * 5) % Self.subjects.count]) (\(index))\n\nbody of change \(index)\n"
            let result = try await git(
                ["commit", "-q", "--allow-empty", "-m", message],
                [
                    "GIT_AUTHOR_NAME": author.0, "GIT_AUTHOR_EMAIL": author.1, "GIT_AUTHOR_DATE": date,
                    "GIT_COMMITTER_NAME": committer.0, "GIT_COMMITTER_EMAIL": committer.1, "GIT_COMMITTER_DATE": date,
                ])
            #expect(result.status == 0, "\(result.stderr)")
        }
        try await storeHistory()
    }

    func git(_ arguments: [String], _ environment: [String: String] = [:]) async throws -> ProcessResult {
        try await runProgram(
            "/usr/bin/git", ["-C", repository] + arguments,
            environment: ["TZ": "UTC", "HOME": directory.path("."), "GIT_CONFIG_NOSYSTEM": "1"]
                .merging(environment) { _, new in new })
    }

    /// git's own record of every commit, stored through the store's upsert path.
    private func storeHistory() async throws {
        let log = try await git(["log", "--format=%H%x00%an%x00%ae%x00%at%x00%cn%x00%ce%x00%ct%x00%P%x00%B%x1e"])
        let store = try MirrorStore(path: db)
        let repo = try store.ensureRepository(named: RepositoryName(parsing: "acme/parity")!)
        let payloads = log.stdout.split(separator: "\u{1e}").compactMap { record -> CommitPayload? in
            let fields = record.trimmingCharacters(in: .newlines).split(separator: "\0", omittingEmptySubsequences: false).map(String.init)
            guard fields.count == 9 else { return nil }
            return CommitPayload(
                sha: fields[0],
                commit: GitCommit(
                    author: GitSignature(name: fields[1], email: fields[2], date: Date(timeIntervalSince1970: Double(fields[3])!)),
                    committer: GitSignature(name: fields[4], email: fields[5], date: Date(timeIntervalSince1970: Double(fields[6])!)),
                    message: fields[8], tree: nil),
                htmlURL: nil, author: nil, committer: nil,
                parents: fields[7].split(separator: " ").map { ParentReference(sha: String($0)) })
        }
        #expect(payloads.count == 90)
        try store.db.transaction { _ = try store.upsert(payloads.map(MirrorCore.Commit.init), repositoryID: repo.id) }
    }

    func gitLog(_ arguments: [String]) async throws -> [String] {
        let result = try await git(["log", "-i", "--format=%H"] + arguments)
        #expect(result.status == 0, "git log \(arguments): \(result.stderr)")
        return result.lines
    }

    func query(_ arguments: [String]) async throws -> [String] {
        let result = try await commitsctl(["query", "--db", db, "--format", "ndjson"] + arguments)
        #expect(result.status == 0, "query \(arguments): \(result.stderr)")
        return result.lines.compactMap { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["sha"] as? String
        }
    }

    static let cases: [[String]] = [
        ["--author", "ada", "--author", "grace"],
        ["--committer", "turing", "--committer", "katherine"],
        ["--author", "ada", "--author", "grace", "--committer", "hopper"],
        ["--grep", "parser", "--grep", "docs"],
        ["--grep", "parser", "--grep", "fix", "--all-match"],
        ["--grep", "parser", "--grep", "sync", "--invert-grep"],
        ["--author", "alan", "--grep", "fix", "--grep", "readme"],
        ["-n", "5"], ["-n5"], ["-7"], ["--max-count=5"], ["--author", "ada", "-3"],
        ["--since", "2 weeks ago"], ["--after", "2.weeks.ago"], ["--until", "yesterday"], ["--before", "3 days ago"],
        ["--since", "last tuesday"], ["--since", "noon"], ["--until", "noon"], ["--since", "yesterday noon"],
        ["--since", "last friday", "--until", "yesterday", "--grep", "fix"],
    ]

    @Test(arguments: cases)
    func sameCommitsAsGitLog(_ arguments: [String]) async throws {
        let expected = try await gitLog(arguments)
        let actual = try await query(arguments)
        #expect(actual == expected, "\(arguments)")
        // A filter that selects nothing, or everything, would prove little.
        if !arguments.contains(where: { $0.hasPrefix("--since") || $0.hasPrefix("--after") || $0 == "--until" || $0 == "--before" }) {
            #expect(!expected.isEmpty && expected.count < 90, "\(arguments) selects \(expected.count) commits")
        }
    }
}
