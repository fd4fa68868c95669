import Foundation
import MirrorTestSupport
import Testing

/// Changed paths through the real commands: github-sim serving Alamofire's real
/// history, `commitsctl sync --paths` into a real SQLite file, then `query --
/// PATH`, `show --name-status` and `show --format json` compared with real git.
@Suite(.enabled(if: PackagePaths.hasAlamofire, "needs ../shared/datasets/alamofire.bundle"))
struct PathsCLITests {
    @Test func syncReadsThePathsAndQueryAndShowAnswerAsGitDoes() async throws {
        let directory = try TemporaryDirectory()
        let repository = directory.path("alamofire.git")
        func git(_ arguments: [String]) async throws -> String {
            let result = try await runProgram("/usr/bin/git", ["-C", repository] + arguments)
            #expect(result.status == 0, "git \(arguments): \(result.stderr)")
            return result.stdout
        }
        _ = try await runProgram("/usr/bin/git", ["clone", "--quiet", "--bare", PackagePaths.alamofireBundle, repository])
        let sim = try await SimulatorProcess.start(["--git-repository", "Alamofire/Alamofire=\(repository)"])
        defer { sim.stop() }
        let db = directory.path("commits.sqlite")
        func commitsctl(_ arguments: [String]) async throws -> ProcessResult {
            try await run(
                "commitsctl", [arguments[0], "--db", db] + arguments.dropFirst(),
                environment: ["GITHUB_TOKEN": "test-token", "GITHUB_API_URL": sim.baseURL])
        }

        let sync = try await commitsctl(["sync", "Alamofire/Alamofire", "--paths"])
        #expect(sync.status == 0, "\(sync.stderr)")
        #expect(sync.stdout.contains(", paths of 1678 commits read, "), "\(sync.stdout)")
        #expect(try await commitsctl(["check"]).stdout.contains("\npaths: ok\n"))

        for spec in [["Source"], ["README.md"], ["Source/*.swift", ":!Source/Alamofire.swift"]] {
            for options in [[], ["--full-history"], ["--first-parent"], ["--no-merges"]] {
                let expected = Set(try await git(["log", "--format=%H"] + options + ["master", "--"] + spec).split(separator: "\n"))
                let listed = try await commitsctl(["query", "--format", "ndjson", "-n", "100000"] + options + ["--"] + spec)
                #expect(listed.status == 0 && listed.stderr.isEmpty, "\(listed.stderr)")
                let shas = try listed.lines.map { line in
                    try #require(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])["sha"] as? String ?? ""
                }
                #expect(Set(shas.map { Substring($0) }) == expected, "query \(options) -- \(spec)")
                #expect(!expected.isEmpty)
            }
        }
        // Without `--`, as git takes paths it can tell from options.
        let oneline = try await commitsctl(["query", "-n", "3", "Source/Alamofire.swift"])
        #expect(oneline.status == 0 && oneline.lines.count == 3, "\(oneline.stdout)\(oneline.stderr)")

        let merge = try await git(["rev-list", "--merges", "-n", "1", "master~40"]).trimmingCharacters(in: .whitespacesAndNewlines)
        let root = try await git(["rev-list", "--max-parents=0", "master"]).trimmingCharacters(in: .whitespacesAndNewlines)
        for sha in [merge, root, "master~3"] {
            let full = try await git(["rev-parse", sha]).trimmingCharacters(in: .whitespacesAndNewlines)
            for list in ["--name-status", "--name-only"] {
                let expected = try await git(["show", "--no-renames", list, "--format=", full])
                let shown = try await commitsctl(["show", full, list, "--format", "none"])
                #expect(shown.status == 0 && shown.stdout == expected, "show \(list) \(sha): \(shown.stderr)")
            }
        }
        let json = try await commitsctl(["show", root, "--format", "json"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let files = try #require(object["files"] as? [[String: Any]])
        #expect(files.count == (try await git(["show", "--format=", "--name-only", root])).split(separator: "\n").count)
        #expect(files.allSatisfy { $0["status"] as? String == "A" && $0["old_id"] is NSNull && ($0["new_id"] as? String)?.count == 40 })

        // Who changed these files: git shortlog's counts per name, no merges.
        for spec in [["Source/Session.swift"], ["Tests"]] {
            var expected: [String: Int] = [:]
            for line in try await git(["shortlog", "-sn", "--no-merges", "master", "--"] + spec).split(separator: "\n") {
                let fields = line.split(separator: "\t", maxSplits: 1)
                expected[String(fields[1]), default: 0] += Int(fields[0].trimmingCharacters(in: .whitespaces)) ?? 0
            }
            let authors = try await commitsctl(["authors", "--format", "json", "--"] + spec)
            let people = try #require(try JSONSerialization.jsonObject(with: Data(authors.stdout.utf8)) as? [[String: Any]])
            // Those only co-authoring are listed too (with their co-authored commits); shortlog has no such column.
            let counted = Dictionary(
                people.map { ($0["name"] as? String ?? "", $0["commits"] as? Int ?? 0) }.filter { $0.1 > 0 }, uniquingKeysWith: +)
            #expect(counted == expected, "authors -- \(spec): \(authors.stderr)")
            #expect(expected.count > 3)
        }

        // The hot spots: git's counts of non-merge commits naming each path, most first.
        for spec in [[], ["Tests"]] {
            var counts: [String: Int] = [:]
            let names = try await git(["log", "--no-merges", "--no-renames", "--format=", "--name-only", "master", "--"] + spec)
            for name in names.split(separator: "\n") { counts[String(name), default: 0] += 1 }
            let hot = try await commitsctl(["paths", "--format", "json", "--top", "5"] + spec)
            let rows = try #require(try JSONSerialization.jsonObject(with: Data(hot.stdout.utf8)) as? [[String: Any]])
            #expect(rows.count == 5, "\(hot.stderr)")
            let top = counts.values.sorted(by: >).prefix(5)
            #expect(rows.map { $0["commits"] as? Int ?? 0 } == Array(top), "paths \(spec)")
            for row in rows { #expect(counts[row["path"] as? String ?? ""] == row["commits"] as? Int) }
        }

        let status = try await commitsctl(["status", "--format", "json"])
        let rows = try #require(try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [[String: Any]])
        #expect(rows.first?["repository_commits_with_paths"] as? Int == 1678, "\(status.stdout)")

        let bad = try await commitsctl(["query", "--", ":(icase)readme"])
        #expect(bad.status != 0 && bad.stderr.split(separator: "\n").count == 1, "\(bad.stderr)")
    }
}
