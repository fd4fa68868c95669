import Curl
import Foundation

/// A `github-sim` process on an ephemeral loopback port; terminated on `stop()`.
public final class SimulatorProcess: @unchecked Sendable {
    public let process: ChildProcess
    public let baseURL: String

    /// `launcher` is a command the simulator runs through (`setpriv … --`, say); none by default.
    public init(_ arguments: [String], environment: [String: String] = [:], launcher: [String] = []) throws {
        let command = launcher + [Executables.path("github-sim")] + arguments
        process = try ChildProcess(
            command[0], Array(command.dropFirst()),
            environment: ProcessInfo.processInfo.environment.merging(environment) { _, new in new }, stdout: .pipe)
        // The first stdout line is the base URL.
        var line = Data()
        while true {
            let byte = process.output!.readData(ofLength: 1)
            if byte.isEmpty || byte == Data("\n".utf8) { break }
            line.append(byte)
        }
        baseURL = String(decoding: line, as: UTF8.self)
        guard baseURL.hasPrefix("http://") else {
            process.kill()
            throw SimulatorStartError(output: baseURL)
        }
    }

    /// `init` on a thread of its own: it waits for the child to print its URL,
    /// which takes seconds on a loaded machine, and on the cooperative pool
    /// (two threads on CI) that wait stalled every other test of the process.
    public static func start(
        _ arguments: [String], environment: [String: String] = [:], launcher: [String] = []
    ) async throws -> SimulatorProcess {
        try await onThread { try SimulatorProcess(arguments, environment: environment, launcher: launcher) }
    }

    public struct SimulatorStartError: Error { public var output: String }

    /// JSON from a control endpoint such as `/_sim/stats` (over our own libcurl client).
    @discardableResult
    public func control(_ path: String, method: String = "GET", body: String? = nil) async throws -> [String: Any] {
        let response = try await HTTPClient().send(
            HTTPRequest(
                url: baseURL + path, method: method,
                headers: [("User-Agent", "commits-mirror-tests")],
                body: body.map { Array($0.utf8) }))
        return try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any] ?? [:]
    }

    public func stop() {
        process.signal(SIGTERM)
        process.waitBlocking()
    }

    deinit { stop() }
}
