import Foundation
import MirrorTestSupport
import Testing

/// `paths: false` on one repository's entry: `commitsctl sync --paths` reads the
/// trees of the others over git and never that one's, as `status` then counts.
/// Two small real git repositories served by a github-sim process.
@Suite struct PathsConfigCLITests {
    @Test func aRepositoryWhoseEntrySaysPathsFalseIsReadWithoutItsTrees() async throws {
        let directory = try TemporaryDirectory()
        let (plain, withPaths) = (directory.path("plain.git"), directory.path("with-paths.git"))
        try await Self.makeRepository(at: plain, files: ["a.txt", "b/c.txt", "d.md"], in: directory)
        try await Self.makeRepository(at: withPaths, files: ["x.swift", "y/z.swift", "w.md", "v.txt"], in: directory)
        let sim = try await SimulatorProcess.start([
            "--git-repository", "acme/plain=\(plain)", "--git-repository", "acme/with-paths=\(withPaths)",
        ])
        defer { sim.stop() }
        let config = try directory.write(
            "config.yaml",
            """
            store: commits.sqlite
            api_url: \(sim.baseURL)
            repositories:
              - name: acme/plain
                paths: false
              - acme/with-paths
            """)
        let synced = try await run("commitsctl", ["sync", "--config", config, "--paths"], environment: ["GITHUB_TOKEN": "test-token"])
        #expect(synced.status == 0, "\(synced.stderr)")
        #expect(synced.lines.contains { $0.hasPrefix("acme/with-paths@") && $0.contains("paths of 4 commits read") }, "\(synced.stdout)")
        #expect(synced.lines.contains { $0.hasPrefix("acme/plain@") && !$0.contains("paths of") }, "\(synced.stdout)")
        let status = try await run("commitsctl", ["status", "--config", config, "--format", "ndjson"])
        let rows = status.lines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        let covered = Dictionary(rows.map { ($0["repository"] as? String ?? "", $0["repository_commits_with_paths"] as? Int ?? -1) }) {
            $1
        }
        #expect(covered == ["acme/plain": 0, "acme/with-paths": 4], "\(status.stdout)")
    }

    /// A bare repository at `path` with one commit per file, each adding it.
    static func makeRepository(at path: String, files: [String], in directory: TemporaryDirectory) async throws {
        let work = directory.path(URL(fileURLWithPath: path).lastPathComponent + ".work")
        let environment = [
            "GIT_AUTHOR_NAME": "A U Thor", "GIT_AUTHOR_EMAIL": "author@example.com", "GIT_COMMITTER_NAME": "A U Thor",
            "GIT_COMMITTER_EMAIL": "author@example.com", "HOME": directory.path("."), "GIT_CONFIG_NOSYSTEM": "1",
        ]
        func git(_ arguments: [String]) async throws {
            let result = try await runProgram("/usr/bin/git", ["-C", work] + arguments, environment: environment)
            #expect(result.status == 0, "git \(arguments): \(result.stderr)")
        }
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        try await git(["init", "--quiet", "--initial-branch=main"])
        for (index, file) in files.enumerated() {
            let url = URL(fileURLWithPath: work).appendingPathComponent(file)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data("\(file) \(index)\n".utf8).write(to: url)
            try await git(["add", file])
            try await git(["commit", "--quiet", "-m", "Add \(file)", "--date", "2024-01-0\(index + 1)T12:00:00Z"])
        }
        let cloned = try await runProgram("/usr/bin/git", ["clone", "--quiet", "--bare", work, path], environment: environment)
        #expect(cloned.status == 0, "\(cloned.stderr)")
    }
}
