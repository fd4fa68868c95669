import Foundation

/// Runs a product like `run`, but kills it (SIGKILL) if it has not exited
/// within `limit`: a process that blocks (opening a FIFO, say) fails its test
/// instead of hanging the run. `nil` when it had to be killed.
public func runBounded(
    _ executable: String, _ arguments: [String], limit: Duration,
    environment: [String: String] = [:]
) async throws -> ProcessResult? {
    try await onThread {
        let process = Process()
        process.executableURL = Executables.url(executable)
        process.arguments = arguments
        process.environment = Executables.environment(environment)
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        let exited = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in exited.signal() }
        try process.run()
        let readers = DispatchGroup()
        nonisolated(unsafe) var stdoutData = Data(), stderrData = Data()
        readers.enter()
        DispatchQueue.global().async {
            stdoutData = out.fileHandleForReading.readDataToEndOfFile(); readers.leave()
        }
        readers.enter()
        DispatchQueue.global().async {
            stderrData = err.fileHandleForReading.readDataToEndOfFile(); readers.leave()
        }
        var killed = false
        if exited.wait(timeout: .now() + limit.timeInterval) == .timedOut {
            kill(process.processIdentifier, SIGKILL)
            killed = true
            exited.wait()
        }
        readers.wait()
        guard !killed else { return nil }
        return ProcessResult(
            status: process.terminationStatus, stdout: String(decoding: stdoutData, as: UTF8.self),
            stderr: String(decoding: stderrData, as: UTF8.self))
    }
}

/// Runs blocking `body` on its own thread and waits at most `limit` for it.
/// On time-out `unblock` runs (e.g. opens the other end of a FIFO) so the
/// stuck call can return and its thread end; the answer is then `nil`.
public func withDeadline<T: Sendable>(
    _ limit: Duration, unblock: @escaping @Sendable () -> Void = {},
    _ body: @escaping @Sendable () -> T
) async -> T? {
    let done = DispatchSemaphore(value: 0)
    nonisolated(unsafe) var result: T?
    let thread = Thread {
        result = body()
        done.signal()
    }
    thread.stackSize = 1 << 20
    thread.start()
    return await onThread { () -> T? in
        if done.wait(timeout: .now() + limit.timeInterval) == .timedOut {
            unblock()
            _ = done.wait(timeout: .now() + 5)
            return nil
        }
        return result
    }
}

/// A FIFO (named pipe) at `path`, for tests that a path is refused without being opened.
public func makeFIFO(_ path: String) throws {
    guard mkfifo(path, 0o600) == 0 else {
        throw NSError(domain: NSPOSIXErrorDomain, code: Int(errno), userInfo: [NSLocalizedDescriptionKey: "mkfifo \(path)"])
    }
}

/// Opens and closes the write end of the FIFO at `path` without blocking,
/// releasing a reader stuck in open(2).
public func releaseFIFOReader(_ path: String) {
    let fd = open(path, O_WRONLY | O_NONBLOCK)
    if fd >= 0 { close(fd) }
}

extension Duration {
    var timeInterval: TimeInterval {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
