import Foundation
import GitHubSim

/// A running `commitsd`, its stderr going to a file the test can read at any time.
public final class DaemonProcess: @unchecked Sendable {
    public let process: ChildProcess
    public let logPath: String

    public init(_ arguments: [String], environment: [String: String] = [:], logPath: String) throws {
        self.logPath = logPath
        process = try ChildProcess(product: "commitsd", arguments, environment: environment, stderr: .file(logPath))
    }

    public var pid: Int32 { process.pid }
    public var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    public func signal(_ signal: Int32) { process.signal(signal) }

    /// When `waitForExit` saw the process gone (watched from its own thread, so a
    /// busy test pool delays neither the watch nor this figure).
    public private(set) var exitSeenAt: ContinuousClock.Instant?

    /// Waits up to `timeout` for the process to exit; its status (128 + the
    /// signal when one ended it), or nil if still running.
    public func waitForExit(timeout: Duration) async -> Int32? {
        let termination = await onThread { [self] in
            let termination = process.waitBlocking(timeout: timeout)
            if termination != nil { exitSeenAt = .now }
            return termination
        }
        return termination?.status
    }

    public func stop() { process.kill() }

    deinit { stop() }

    /// The port of the address a start-up log field names (`key` such as
    /// `webhook.listen=`), once the line is logged (60 s at most).
    public func listeningPort(_ key: String) async throws -> Int {
        let logged = await waitUntil(timeout: .seconds(60)) { self.log.contains(key) }
        let port =
            log.split(separator: "\n").first { $0.contains(key) }?.split(separator: " ").first { $0.hasPrefix(key) }?
            .split(separator: ":").last.flatMap { Int($0.prefix { $0.isNumber }) }
        guard logged, let port else { throw DaemonLogError(description: "no \(key) port in the log:\n\(log)") }
        return port
    }
}

/// What a daemon's log lacked.
public struct DaemonLogError: Error, CustomStringConvertible {
    public let description: String
}

extension DaemonProcess {
    /// commitsd polling `repositories` on `simulator`, with its configuration
    /// (`writeConfiguration`) and log in `directory`, authenticated with `token`;
    /// `environment`: more variables.
    public static func mirroring(
        _ repositories: [String], from simulator: GitHubSimulator, in directory: TemporaryDirectory,
        store: String = "state/commits.sqlite", named name: String? = nil, interval: String? = "1s", settings: String = "",
        environment: [String: String] = [:], logLevel: String = "trace", token: String = SecretScan.token
    ) throws -> DaemonProcess {
        let config = try writeConfiguration(
            repositories, from: simulator, in: directory, store: store, named: name, interval: interval, settings: settings)
        return try DaemonProcess(
            ["--config", config, "--log-level", logLevel],
            environment: ["GITHUB_TOKEN": token].merging(environment) { $1 },
            logPath: directory.path("\(name ?? "commitsd").log"))
    }

    /// Writes the configuration `mirroring` starts commitsd with (again, for a
    /// reload) and returns its path: `store` (`state/commits.sqlite` unless named
    /// otherwise) and `simulator` as the API. `named`: the daemon's `name`, and the
    /// name of its configuration and log files, for several daemons in one
    /// directory. `interval`: `default_interval`, nil for none. Each repository
    /// entry may span lines (`name: acme/*` then `branches: …`); `settings` are
    /// more lines of the configuration.
    @discardableResult
    public static func writeConfiguration(
        _ repositories: [String], from simulator: GitHubSimulator, in directory: TemporaryDirectory,
        store: String = "state/commits.sqlite", named name: String? = nil, interval: String? = "1s", settings: String = ""
    ) throws -> String {
        let header =
            ["store: \(store)", "api_url: \(simulator.baseURL)"] + (name.map { ["name: \($0)"] } ?? [])
            + (interval.map { ["default_interval: \($0)"] } ?? [])
        let entries = repositories.map { "  - " + $0.replacingOccurrences(of: "\n", with: "\n    ") }
        return try directory.write(
            "\(name ?? "config").yaml", (header + [settings, "repositories:"] + entries).joined(separator: "\n") + "\n")
    }
}
