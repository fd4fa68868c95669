import MirrorTestSupport
import Foundation
import SQLite

/// A product run as a process whose stdout and stderr go to files, so the test
/// can kill it at any moment and still read everything it wrote.
final class CapturedProcess: @unchecked Sendable {
    let process = Process()
    let stdoutPath: String
    let stderrPath: String

    init(_ executable: String, _ arguments: [String], environment: [String: String], logDirectory: URL, name: String) throws {
        stdoutPath = logDirectory.appendingPathComponent("\(name).out").path
        stderrPath = logDirectory.appendingPathComponent("\(name).err").path
        FileManager.default.createFile(atPath: stdoutPath, contents: nil)
        FileManager.default.createFile(atPath: stderrPath, contents: nil)
        process.executableURL = Executables.url(executable)
        process.arguments = arguments
        process.environment = Executables.environment(environment)
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: stdoutPath))
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: stderrPath))
        process.standardInput = FileHandle.nullDevice
        try process.run()
    }

    var pid: Int32 { process.processIdentifier }
    var stdout: String { (try? String(contentsOfFile: stdoutPath, encoding: .utf8)) ?? "" }
    var stderr: String { (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "" }

    func kill(_ signal: Int32 = SIGKILL) { Foundation.kill(process.processIdentifier, signal) }

    /// Waits for the exit; the status, or nil when a signal ended it.
    @discardableResult
    func wait() -> Int32? {
        process.waitUntilExit()
        return process.terminationReason == .exit ? process.terminationStatus : nil
    }

    deinit {
        if process.isRunning {
            kill()
            process.waitUntilExit()
        }
    }
}

/// Read-only looks at a store from the test process.
enum StoreFacts {
    static func shas(_ store: String, repository: String) throws -> Set<String> {
        guard FileManager.default.fileExists(atPath: store) else { return [] }
        return Set(try Connection(path: store, mode: .readOnly).prepare("""
            SELECT c.sha FROM repository_commits rc JOIN commits c ON c.id = rc.commit_id
            JOIN repositories r ON r.id = rc.repository_id WHERE r.full_name = ?
            """).bind([repository]).map { $0.string(0) })
    }

    /// Every mirrored fact about every commit, independent of row ids (sync bookkeeping left out).
    static func dump(_ store: String) throws -> [String] {
        try Connection(path: store, mode: .readOnly).prepare("""
            SELECT json_array(c.sha, c.message, a.name, a.email, a.login, c.author_date, m.name, m.email,
                              c.committer_date, c.parent_count, c.tree_sha,
                              (SELECT group_concat(parent_sha, ',') FROM
                                  (SELECT parent_sha FROM commit_parents p WHERE p.commit_id = c.id ORDER BY position)),
                              (SELECT group_concat(full_name, ',') FROM
                                  (SELECT r.full_name FROM repository_commits rc JOIN repositories r ON r.id = rc.repository_id
                                   WHERE rc.commit_id = c.id ORDER BY r.full_name)))
            FROM commits c JOIN authors a ON a.id = c.author_id JOIN authors m ON m.id = c.committer_id
            ORDER BY c.sha
            """).map { $0.string(0) }
    }

    /// Memberships stored (all repositories); 0 when the store cannot be read yet.
    static func count(_ store: String) -> Int {
        guard FileManager.default.fileExists(atPath: store),
              let connection = try? Connection(path: store, mode: .readOnly) else { return 0 }
        return (try? connection.scalarInt("SELECT count(*) FROM repository_commits")) ?? 0
    }

    static func integrity(_ store: String) throws -> String {
        try Connection(path: store, mode: .readOnly).pragma("integrity_check")
    }

    static func foreignKeyViolations(_ store: String) throws -> Int {
        try Connection(path: store, mode: .readOnly).prepare("PRAGMA foreign_key_check").map { _ in 1 }.count
    }
}
