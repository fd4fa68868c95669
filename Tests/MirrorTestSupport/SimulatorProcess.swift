import Curl
import Foundation

/// A `github-sim` process on an ephemeral loopback port; terminated on `stop()`.
public final class SimulatorProcess: @unchecked Sendable {
    public let process = Process()
    public let baseURL: String

    public init(_ arguments: [String], environment: [String: String] = [:]) throws {
        process.executableURL = Executables.url("github-sim")
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        // The first stdout line is the base URL.
        var line = Data()
        while true {
            let byte = out.fileHandleForReading.readData(ofLength: 1)
            if byte.isEmpty || byte == Data("\n".utf8) { break }
            line.append(byte)
        }
        baseURL = String(decoding: line, as: UTF8.self)
        guard baseURL.hasPrefix("http://") else {
            process.terminate()
            throw SimulatorStartError(output: baseURL)
        }
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
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
    }

    deinit { stop() }
}
