import MirrorTestSupport
import Curl
import Foundation
import GitHubSim
import SQLite
import Testing

/// A running `commitsd`, its stderr going to a file the test can read at any time.
final class DaemonProcess: @unchecked Sendable {
    let process: ChildProcess
    let logPath: String

    init(_ arguments: [String], environment: [String: String] = [:], logPath: String) throws {
        self.logPath = logPath
        process = try ChildProcess(product: "commitsd", arguments, environment: environment, stderr: .file(logPath))
    }

    var pid: Int32 { process.pid }
    var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    func signal(_ signal: Int32) { process.signal(signal) }

    /// When `waitForExit` saw the process gone (watched from its own thread, so a
    /// busy test pool delays neither the watch nor this figure).
    private(set) var exitSeenAt: ContinuousClock.Instant?

    /// Waits up to `timeout` for the process to exit; its status (128 + the
    /// signal when one ended it), or nil if still running.
    func waitForExit(timeout: Duration) async -> Int32? {
        let termination = await onThread { [self] in
            let termination = process.waitBlocking(timeout: timeout)
            if termination != nil { exitSeenAt = .now }
            return termination
        }
        return termination?.status
    }

    func stop() { process.kill() }

    deinit { stop() }

    /// The port of the address a start-up log field names (`key` such as
    /// `webhook.listen=`), once the line is logged (60 s at most).
    func listeningPort(_ key: String) async throws -> Int {
        try #require(await waitUntil(timeout: .seconds(60)) { self.log.contains(key) }, "\(log)")
        return try #require(
            log.split(separator: "\n").first { $0.contains(key) }?.split(separator: " ").first { $0.hasPrefix(key) }?
                .split(separator: ":").last.flatMap { Int($0.prefix { $0.isNumber }) }, "\(log)")
    }
}

extension DaemonProcess {
    /// commitsd polling `repositories` on `simulator` every second, with its
    /// configuration, store (`state/commits.sqlite` unless `store` names another)
    /// and log in `directory`, authenticated with `SecretScan.token`; `settings`
    /// are more lines of its configuration, `environment` more variables.
    static func mirroring(
        _ repositories: [String], from simulator: GitHubSimulator, in directory: TemporaryDirectory,
        store: String = "state/commits.sqlite", settings: String = "", environment: [String: String] = [:],
        logLevel: String = "trace"
    ) throws -> DaemonProcess {
        let config = try directory.write(
            "config.yaml",
            """
            store: \(store)
            api_url: \(simulator.baseURL)
            default_interval: 1s
            \(settings)
            repositories:
            \(repositories.map { "  - \($0)" }.joined(separator: "\n"))

            """)
        return try DaemonProcess(
            ["--config", config, "--log-level", logLevel],
            environment: ["GITHUB_TOKEN": SecretScan.token].merging(environment) { $1 },
            logPath: directory.path("commitsd.log"))
    }
}
