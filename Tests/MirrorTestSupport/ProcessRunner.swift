import Foundation
import Synchronization

/// The captured result of one finished process.
public struct ProcessResult: Sendable {
    public var status: Int32
    public var stdout: String
    public var stderr: String
    /// Its peak resident memory in KiB, as the kernel counted it (`nil` when not known).
    public var peakResidentKiB: Int?
    public var lines: [String] { stdout.split(separator: "\n", omittingEmptySubsequences: true).map(String.init) }

    public init(status: Int32, stdout: String, stderr: String, peakResidentKiB: Int? = nil) {
        self.status = status
        self.stdout = stdout
        self.stderr = stderr
        self.peakResidentKiB = peakResidentKiB
    }
}

extension ProcessResult {
    /// A sync of a test history needs a few tens of MB (measured ~40 MB); far
    /// more means something a server sent was held without bound.
    public static let memoryBoundKiB = 200 << 10

    /// Its peak resident memory was sampled, and stayed under `limitKiB`.
    public func peakResident(below limitKiB: Int = ProcessResult.memoryBoundKiB) -> Bool {
        guard let peak = peakResidentKiB else { return false }
        return peak > 0 && peak < limitKiB
    }
}

/// A finished run plus the argv the kernel showed for it while it ran.
public struct ObservedRun: Sendable {
    public var result: ProcessResult
    public var argv: String
}

/// Runs a product (`Executables`) to completion with an isolated environment,
/// waiting off the cooperative pool.
public func run(
    _ executable: String, _ arguments: [String], environment: [String: String] = [:],
    stdin: Data? = nil
) async throws -> ProcessResult {
    try await onThread {
        try execute(Executables.path(executable), arguments, environment: Executables.environment(environment), stdin: stdin).result
    }
}

/// Like `run`, also reading the process's `/proc/PID/cmdline` while it runs.
public func runObserved(_ executable: String, _ arguments: [String], environment: [String: String] = [:]) async throws -> ObservedRun {
    try await onThread { try runObservedBlocking(executable, arguments, environment: environment) }
}

/// `runObserved` for code already on a thread of its own (see `onThread`): it blocks that thread.
public func runObservedBlocking(_ executable: String, _ arguments: [String], environment: [String: String] = [:]) throws -> ObservedRun {
    try execute(Executables.path(executable), arguments, environment: Executables.environment(environment), stdin: nil)
}

/// Runs any program (`mount`, `setpriv`, `git` …) to completion, capturing its output.
public func runProgram(_ path: String, _ arguments: [String], environment: [String: String] = [:]) async throws -> ProcessResult {
    try await onThread { try runProgramBlocking(path, arguments, environment: environment) }
}

/// `runProgram` where no `await` is possible (a static initializer, a `defer`): it blocks the calling thread.
public func runProgramBlocking(_ path: String, _ arguments: [String], environment: [String: String] = [:]) throws -> ProcessResult {
    try execute(path, arguments, environment: Executables.environment(environment), stdin: nil).result
}

private func execute(
    _ path: String, _ arguments: [String], environment: [String: String],
    stdin: Data?
) throws -> ObservedRun {
    let child = try ChildProcess(
        path, arguments, environment: environment, stdin: stdin == nil ? .null : .pipe, stdout: .pipe, stderr: .pipe)
    // The kernel shows the new argv only once the child has exec'd (before, it is
    // the test's own; after exit, empty): look until it names the executable.
    var argv = ""
    let deadline = ContinuousClock.now + .seconds(5)
    while child.isRunning, ContinuousClock.now < deadline {
        argv = SecretScan.commandLine(of: child.pid) ?? ""
        if argv.hasPrefix(path) { break }
        usleep(1_000)
    }
    if let stdin, let input = child.input {
        Thread {
            input.write(stdin)
            try? input.close()
        }.start()
    }
    // Read both pipes to the end before waiting, so a chatty process never blocks.
    let stderrData = Mutex(Data())
    let stderrRead = DispatchSemaphore(value: 0)
    Thread { [errors = child.errors!] in
        let data = errors.readDataToEndOfFile()
        stderrData.withLock { $0 = data }
        stderrRead.signal()
    }.start()
    let stdoutData = child.output!.readDataToEndOfFile()
    stderrRead.wait()
    let result = ProcessResult(
        status: child.waitBlocking().status, stdout: String(decoding: stdoutData, as: UTF8.self),
        stderr: String(decoding: stderrData.withLock { $0 }, as: UTF8.self), peakResidentKiB: child.peakResidentKiB)
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
