import MirrorTestSupport
import Foundation
import SQLite

/// A product run as a process whose stdout and stderr go to files, so the test
/// can kill it at any moment and still read everything it wrote.
final class CapturedProcess: @unchecked Sendable {
    let process: ChildProcess
    let stdoutPath: String
    let stderrPath: String

    init(_ executable: String, _ arguments: [String], environment: [String: String], logDirectory: URL, name: String) throws {
        stdoutPath = logDirectory.appendingPathComponent("\(name).out").path
        stderrPath = logDirectory.appendingPathComponent("\(name).err").path
        process = try ChildProcess(
            product: executable, arguments, environment: environment, stdout: .file(stdoutPath), stderr: .file(stderrPath))
    }

    var pid: Int32 { process.pid }
    var stdout: String { (try? String(contentsOfFile: stdoutPath, encoding: .utf8)) ?? "" }
    var stderr: String { (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "" }

    func kill(_ signal: Int32 = SIGKILL) { process.signal(signal) }

    /// Waits for the exit (blocking: call it off the pool); the status, or nil when a signal ended it.
    @discardableResult
    func wait() -> Int32? { process.waitBlocking().exitStatus }

    deinit { process.kill() }
}
