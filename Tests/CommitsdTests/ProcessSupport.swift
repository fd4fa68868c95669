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
        await waitUntil(timeout: timeout) { !process.isRunning }
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
