import Curl
import Foundation
import GitHubSim
import SQLite
import Testing

/// The built products (`commitsd`, `commitsctl`, `github-sim`) run as real
/// processes, the way systemd and cron run them.
enum Executables {
    static let productsDirectory: URL = {
        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        var directory = executable.deletingLastPathComponent()
        while directory.path != "/" && !FileManager.default.fileExists(atPath: directory.appendingPathComponent("commitsd").path) {
            directory.deleteLastPathComponent()
        }
        return directory
    }()

    static func path(_ name: String) -> String { productsDirectory.appendingPathComponent(name).path }

    static let packageRoot: URL = {
        var url = URL(fileURLWithPath: #filePath)
        while url.path != "/" {
            url.deleteLastPathComponent()
            if FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) { return url }
        }
        fatalError("Package.swift not found above \(#filePath)")
    }()

    /// Variables that would change what the programs do; tests set what they need.
    static let isolatedVariables = [
        "GITHUB_TOKEN", "GH_TOKEN", "COMMITS_DB", "GITHUB_API_URL", "CREDENTIALS_DIRECTORY", "COMMITS_MIRROR_CONFIG",
        "CONFIGURATION_DIRECTORY", "STATE_DIRECTORY", "NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID", "JOURNAL_STREAM",
    ]

    static func environment(_ extra: [String: String]) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        for name in isolatedVariables { environment.removeValue(forKey: name) }
        return environment.merging(extra) { _, new in new }
    }
}

struct ProcessResult {
    var status: Int32
    var stdout: String
    var stderr: String
    var lines: [String] { stdout.split(separator: "\n").map(String.init) }
}

/// Runs a product to completion.
func run(_ executable: String, _ arguments: [String], environment: [String: String] = [:],
         stdin: Data? = nil) throws -> ProcessResult {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: Executables.path(executable))
    process.arguments = arguments
    process.environment = Executables.environment(environment)
    let out = Pipe(), err = Pipe()
    process.standardOutput = out
    process.standardError = err
    let input = Pipe()
    process.standardInput = stdin == nil ? FileHandle.nullDevice : input
    try process.run()
    if let stdin {
        DispatchQueue.global().async {
            input.fileHandleForWriting.write(stdin)
            try? input.fileHandleForWriting.close()
        }
    }
    let group = DispatchGroup()
    nonisolated(unsafe) var stderrData = Data()
    group.enter()
    DispatchQueue.global().async {
        stderrData = err.fileHandleForReading.readDataToEndOfFile()
        group.leave()
    }
    let stdoutData = out.fileHandleForReading.readDataToEndOfFile()
    group.wait()
    process.waitUntilExit()
    return ProcessResult(status: process.terminationStatus, stdout: String(decoding: stdoutData, as: UTF8.self),
                         stderr: String(decoding: stderrData, as: UTF8.self))
}

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

/// A fresh directory removed when released (short path: it may hold a socket).
final class TemporaryDirectory: @unchecked Sendable {
    let url: URL

    init() throws {
        url = URL(fileURLWithPath: "/tmp/commitsd-tests-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    func write(_ name: String, _ text: String) throws -> String {
        let path = self.path(name)
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    deinit { try? FileManager.default.removeItem(at: url) }
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
