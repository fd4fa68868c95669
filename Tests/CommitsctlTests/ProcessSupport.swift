import Curl
import Foundation

/// Runs the package's built executables as real processes, the way users and
/// cron run them.
enum Executables {
    /// The directory holding the built products (beside the test bundle).
    static let productsDirectory: URL = {
        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        var directory = executable.deletingLastPathComponent()
        // swift test may run the bundle from inside <products>/X.xctest/...; walk up to the products.
        while directory.path != "/" && !FileManager.default.fileExists(atPath: directory.appendingPathComponent("commitsctl").path) {
            directory.deleteLastPathComponent()
        }
        return directory
    }()

    static func url(_ name: String) -> URL { productsDirectory.appendingPathComponent(name) }

    static let packageRoot: URL = {
        var url = URL(fileURLWithPath: #filePath)
        while url.path != "/" {
            url.deleteLastPathComponent()
            if FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) { return url }
        }
        fatalError("Package.swift not found above \(#filePath)")
    }()

    static let swiftEvolutionDataset = packageRoot.deletingLastPathComponent()
        .appendingPathComponent("shared/datasets/swift-evolution.commits.jsonl.gz").path
    static var hasDataset: Bool { FileManager.default.fileExists(atPath: swiftEvolutionDataset) }
}

/// The captured result of one finished process.
struct ProcessResult {
    var status: Int32
    var stdout: String
    var stderr: String
    var lines: [String] { stdout.split(separator: "\n", omittingEmptySubsequences: true).map(String.init) }
}

/// Runs `executable` to completion with `arguments` and extra environment.
func run(_ executable: String, _ arguments: [String], environment: [String: String] = [:],
         removingEnvironment: [String] = ["GITHUB_TOKEN", "GH_TOKEN", "COMMITS_DB", "GITHUB_API_URL", "CREDENTIALS_DIRECTORY"]) throws -> ProcessResult {
    let process = Process()
    process.executableURL = Executables.url(executable)
    process.arguments = arguments
    var env = ProcessInfo.processInfo.environment
    for name in removingEnvironment { env.removeValue(forKey: name) }
    env.merge(environment) { _, new in new }
    process.environment = env
    let out = Pipe(), err = Pipe()
    process.standardOutput = out
    process.standardError = err
    try process.run()
    // Read both pipes to the end before waiting, so a chatty process never blocks.
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
    return ProcessResult(status: process.terminationStatus,
                         stdout: String(decoding: stdoutData, as: UTF8.self),
                         stderr: String(decoding: stderrData, as: UTF8.self))
}

/// A `github-sim` process on an ephemeral loopback port; terminated on `stop()`.
final class SimulatorProcess {
    let process = Process()
    let baseURL: String

    init(_ arguments: [String], environment: [String: String] = [:]) throws {
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

    struct SimulatorStartError: Error { var output: String }

    /// JSON from a control endpoint such as `/_sim/stats` (over our own libcurl client).
    @discardableResult
    func control(_ path: String, method: String = "GET", body: String? = nil) async throws -> [String: Any] {
        let response = try await HTTPClient().send(HTTPRequest(url: baseURL + path, method: method,
                                                               headers: [("User-Agent", "commitsctl-tests")],
                                                               body: body.map { Array($0.utf8) }))
        return try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any] ?? [:]
    }

    func stop() {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
    }

    deinit { stop() }
}

/// A fresh directory removed when released.
final class TemporaryDirectory {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("commitsctl-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    deinit { try? FileManager.default.removeItem(at: url) }
}
