import Foundation
import GitHubSim
import MirrorTestSupport
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

/// A started simulator serving one realistic synthetic history, `acme/<name>`, to the
/// test token: what the kill tests sync and kill.
func startKillTarget(name: String, id: Int, commits: Int, seed: UInt64) async throws -> GitHubSimulator {
    try await startKillTarget(
        name: name, id: id, source: .synthetic(SyntheticSpec(commits: commits, shape: .realistic, seed: seed)))
}

/// A started simulator serving `source` as `acme/<name>` to the test token.
func startKillTarget(name: String, id: Int, source: RepositorySource) async throws -> GitHubSimulator {
    var configuration = SimConfiguration()
    configuration.validTokens = [SecretScan.token]
    let simulator = try GitHubSimulator(
        configuration: configuration, repositories: [SimRepository(owner: "acme", name: name, id: id, source: source)])
    try await simulator.start()
    return simulator
}

extension CapturedProcess {
    /// `commitsctl sync acme/<name>` into `db` against `simulator`, with the test token
    /// and `environment` besides.
    static func sync(
        _ name: String, db: String, simulator: GitHubSimulator, extra: [String] = [], environment: [String: String] = [:],
        logDirectory: URL, as processName: String
    ) throws -> CapturedProcess {
        try CapturedProcess(
            "commitsctl", ["sync", "acme/\(name)", "--db", db, "--api-url", simulator.baseURL] + extra,
            environment: environment.merging(["GITHUB_TOKEN": SecretScan.token]) { $1 }, logDirectory: logDirectory,
            name: processName)
    }
}
