// `--exec`: run one shell command against the simulator, then stop it. This is
// what makes the README's offline demo a single command.

import Foundation

enum ExecCommand {
    /// Runs `command` with `sh -c`, with `GITHUB_API_URL` set to the simulator,
    /// this executable's directory first on `PATH` (so sibling release binaries
    /// such as commitsctl are found) and a demo `GITHUB_TOKEN` unless one is set.
    /// Returns the command's exit status (128 + signal if it was killed).
    static func run(_ command: String, baseURL: String) async throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", command]
        var environment = ProcessInfo.processInfo.environment
        environment["GITHUB_API_URL"] = baseURL
        let binaries = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent().path
        environment["PATH"] = binaries + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
        if environment["GITHUB_TOKEN"] == nil && environment["GH_TOKEN"] == nil {
            environment["GITHUB_TOKEN"] = "github-sim-demo"
        }
        process.environment = environment
        return try await withCheckedThrowingContinuation { continuation in
            process.terminationHandler = { finished in
                let status =
                    finished.terminationReason == .uncaughtSignal
                    ? 128 + finished.terminationStatus : finished.terminationStatus
                continuation.resume(returning: status)
            }
            do {
                try process.run()
            } catch {
                process.terminationHandler = nil
                continuation.resume(throwing: error)
            }
        }
    }
}
