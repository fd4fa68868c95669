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
