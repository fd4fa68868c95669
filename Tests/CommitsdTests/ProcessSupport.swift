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

    /// When `waitForExit` saw the process gone (watched from its own thread, so a
    /// busy test pool delays neither the watch nor this figure).
    private(set) var exitSeenAt: ContinuousClock.Instant?

    /// Waits up to `timeout` for the process to exit; its status, or nil if still running.
    func waitForExit(timeout: Duration) async -> Int32? {
        let exited = await onThread { [self] in
            let gone = waitUntilBlocking(timeout: timeout) { !process.isRunning }
            if gone { exitSeenAt = .now }
            return gone
        }
        guard exited else { return nil }
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

extension DaemonProcess {
    /// commitsd polling `repositories` on `simulator` every second, with its
    /// configuration, store (`state/commits.sqlite`) and log in `directory`,
    /// authenticated with `SecretScan.token`.
    static func mirroring(
        _ repositories: [String], from simulator: GitHubSimulator, in directory: TemporaryDirectory,
        logLevel: String = "trace"
    ) throws -> DaemonProcess {
        let config = try directory.write(
            "config.yaml",
            """
            store: state/commits.sqlite
            api_url: \(simulator.baseURL)
            default_interval: 1s
            repositories:
            \(repositories.map { "  - \($0)" }.joined(separator: "\n"))

            """)
        return try DaemonProcess(
            ["--config", config, "--log-level", logLevel],
            environment: ["GITHUB_TOKEN": SecretScan.token],
            logPath: directory.path("commitsd.log"))
    }
}
