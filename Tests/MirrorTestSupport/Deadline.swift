import Foundation

/// Runs a product like `run`, but kills it (SIGKILL) if it has not exited
/// within `limit`: a process that blocks (opening a FIFO, say) fails its test
/// instead of hanging the run. `nil` when it had to be killed.
public func runBounded(
    _ executable: String, _ arguments: [String], limit: Duration,
    environment: [String: String] = [:]
) async throws -> ProcessResult? {
    let logs = try TemporaryDirectory()
    let child = try ChildProcess(
        product: executable, arguments, environment: environment,
        stdout: .file(logs.path("stdout")), stderr: .file(logs.path("stderr")))
    guard let termination = await child.wait(timeout: limit) else {
        child.kill()
        return nil
    }
    return ProcessResult(
        status: termination.status, stdout: (try? String(contentsOfFile: logs.path("stdout"), encoding: .utf8)) ?? "",
        stderr: (try? String(contentsOfFile: logs.path("stderr"), encoding: .utf8)) ?? "",
        peakResidentKiB: child.peakResidentKiB)
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
