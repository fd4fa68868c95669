import MirrorTestSupport
import Curl
import Foundation
import GitHubSim
import SQLite
import Testing

/// A running `commitsd`, its stderr going to a file the test can read at any time.
final class DaemonProcess: @unchecked Sendable {
    let process = Process()
    let logPath: String

    init(_ arguments: [String], environment: [String: String] = [:], logPath: String) throws {
        self.logPath = logPath
        try Data().write(to: URL(fileURLWithPath: logPath))
        process.executableURL = URL(fileURLWithPath: Executables.path("commitsd"))
        process.arguments = arguments
        process.environment = Executables.environment(environment)
        process.standardOutput = FileHandle.nullDevice
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: logPath))
        process.standardInput = FileHandle.nullDevice
        try process.run()
    }

    var pid: Int32 { process.processIdentifier }
    var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    func signal(_ signal: Int32) { kill(process.processIdentifier, signal) }

    /// Waits up to `timeout` for the process to exit; its status, or nil if still running.
    func waitForExit(timeout: Duration) async -> Int32? {
        let deadline = ContinuousClock.now + timeout
        while process.isRunning && ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(20))
        }
        guard !process.isRunning else { return nil }
        process.waitUntilExit()
        return process.terminationStatus
    }

    func stop() {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    deinit { stop() }
}

/// Polls `condition` until it holds or `timeout` passes.
func eventually(timeout: Duration = .seconds(30), _ condition: () throws -> Bool) async rethrows -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if try condition() { return true }
        try? await Task.sleep(for: .milliseconds(50))
    }
    return try condition()
}


/// An in-process github-sim with synthetic repositories under `acme/`.
func startSimulator(_ repositories: [(name: String, commits: Int)], configuration: SimConfiguration = .init()) async throws -> GitHubSimulator {
    let simulated = repositories.enumerated().map { index, repository in
        SimRepository(owner: "acme", name: repository.name, id: 1001 + index,
                      source: .synthetic(SyntheticSpec(commits: repository.commits, seed: UInt64(index + 7))))
    }
    let simulator = try GitHubSimulator(configuration: configuration, repositories: simulated)
    try await simulator.start()
    return simulator
}

/// What a store holds for one repository, read-only (safe while a writer works).
enum StoreContents {
    static func shas(_ store: String, repository: String) -> Set<String> {
        guard FileManager.default.fileExists(atPath: store),
              let connection = try? Connection(path: store, mode: .readOnly),
              let rows = try? connection.prepare("""
                  SELECT c.sha FROM repository_commits rc JOIN commits c ON c.id = rc.commit_id
                  JOIN repositories r ON r.id = rc.repository_id WHERE r.full_name = ?
                  """).bind([repository]).map({ $0.string(0) })
        else { return [] }
        return Set(rows)
    }

    /// Every stored fact about the repository's commits, one JSON line per
    /// commit, sorted by sha; independent of row ids and insertion order.
    static func dump(_ store: String, repository: String) throws -> [String] {
        let connection = try Connection(path: store, mode: .readOnly)
        return try connection.prepare("""
            SELECT json_array(c.sha, c.message, c.html_url, a.name, a.email, a.login, a.search_text, c.author_date,
                              m.name, m.email, m.login, c.committer_date, c.parent_count, c.tree_sha,
                              (SELECT group_concat(parent_sha, ',') FROM
                                  (SELECT parent_sha FROM commit_parents p WHERE p.commit_id = c.id ORDER BY position)))
            FROM repository_commits rc JOIN commits c ON c.id = rc.commit_id
            JOIN repositories r ON r.id = rc.repository_id
            JOIN authors a ON a.id = c.author_id JOIN authors m ON m.id = c.committer_id
            WHERE r.full_name = ? ORDER BY c.sha
            """).bind([repository]).map { $0.string(0) }
    }

    static func integrity(_ store: String) throws -> String {
        try Connection(path: store, mode: .readOnly).pragma("integrity_check")
    }
}

/// Saved list-commits pages, as `gh api --paginate repos/O/R/commits` writes them.
func savedPages(_ simulator: GitHubSimulator, repository: String, pages limit: Int = .max) async throws -> [[UInt8]] {
    let client = try HTTPClient()
    var url: String? = "\(simulator.baseURL)/repos/\(repository)/commits?per_page=100"
    var pages: [[UInt8]] = []
    while let next = url, pages.count < limit {
        let response = try await client.send(HTTPRequest(url: next, headers: [
            ("Authorization", "Bearer test-token"), ("Accept", "application/vnd.github+json"), ("User-Agent", "gh"),
        ]))
        pages.append(response.body)
        url = response.headers["link"].flatMap { header in
            header.split(separator: ",").first { $0.contains("rel=\"next\"") }.map { part in
                String(part.drop { $0 != "<" }.dropFirst().prefix { $0 != ">" })
            }
        }
    }
    return pages
}
