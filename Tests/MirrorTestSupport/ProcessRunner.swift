import Foundation

/// The captured result of one finished process.
public struct ProcessResult: Sendable {
    public var status: Int32
    public var stdout: String
    public var stderr: String
    public var lines: [String] { stdout.split(separator: "\n", omittingEmptySubsequences: true).map(String.init) }

    public init(status: Int32, stdout: String, stderr: String) {
        self.status = status
        self.stdout = stdout
        self.stderr = stderr
    }
}

/// A finished run plus the argv the kernel showed for it while it ran.
public struct ObservedRun: Sendable {
    public var result: ProcessResult
    public var argv: String
}

/// Runs a product (`Executables`) to completion with an isolated environment.
public func run(
    _ executable: String, _ arguments: [String], environment: [String: String] = [:],
    stdin: Data? = nil
) throws -> ProcessResult {
    try execute(Executables.path(executable), arguments, environment: environment, stdin: stdin).result
}

/// Like `run`, also reading the process's `/proc/PID/cmdline` while it runs.
public func runObserved(_ executable: String, _ arguments: [String], environment: [String: String] = [:]) throws -> ObservedRun {
    try execute(Executables.path(executable), arguments, environment: environment, stdin: nil)
}

/// Runs any program (`mount`, `setpriv` …) to completion, capturing its output.
public func runProgram(_ path: String, _ arguments: [String], environment: [String: String] = [:]) throws -> ProcessResult {
    try execute(path, arguments, environment: environment, stdin: nil).result
}

private func execute(
    _ path: String, _ arguments: [String], environment: [String: String],
    stdin: Data?
) throws -> ObservedRun {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments = arguments
    process.environment = Executables.environment(environment)
    let out = Pipe(), err = Pipe(), input = Pipe()
    process.standardOutput = out
    process.standardError = err
    process.standardInput = stdin == nil ? FileHandle.nullDevice : input
    try process.run()
    // The kernel shows the new argv only once the child has exec'd (before, it is
    // the test's own; after exit, empty): look until it names the executable.
    var argv = ""
    let deadline = ContinuousClock.now + .seconds(5)
    while process.isRunning, ContinuousClock.now < deadline {
        argv = SecretScan.commandLine(of: process.processIdentifier) ?? ""
        if argv.hasPrefix(path) { break }
        usleep(1_000)
    }
    if let stdin {
        DispatchQueue.global().async {
            input.fileHandleForWriting.write(stdin)
            try? input.fileHandleForWriting.close()
        }
    }
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
    let result = ProcessResult(
        status: process.terminationStatus, stdout: String(decoding: stdoutData, as: UTF8.self),
        stderr: String(decoding: stderrData, as: UTF8.self))
    return ObservedRun(result: result, argv: argv)
}

/// Runs blocking `body` (waiting for a process) on its own thread, so the
/// cooperative pool's threads stay free for the suites running beside it.
public func onThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        let thread = Thread { continuation.resume(with: Result { try body() }) }
        thread.stackSize = 1 << 20
        thread.start()
    }
}

/// `onThread` for work that cannot fail.
public func onThread<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        let thread = Thread { continuation.resume(returning: body()) }
        thread.stackSize = 1 << 20
        thread.start()
    }
}

/// `run` off the cooperative pool.
public func runOffPool(_ executable: String, _ arguments: [String], environment: [String: String] = [:]) async throws -> ProcessResult {
    try await onThread { try run(executable, arguments, environment: environment) }
}

/// `runObserved` off the cooperative pool.
public func runObservedOffPool(_ executable: String, _ arguments: [String], environment: [String: String] = [:]) async throws -> ObservedRun
{
    try await onThread { try runObserved(executable, arguments, environment: environment) }
}
