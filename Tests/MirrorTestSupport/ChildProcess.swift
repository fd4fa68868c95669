import Foundation
import MirrorCore
import Synchronization

/// A program the tests start, spawned and reaped without Foundation's `Process`.
///
/// Why not `Process`: on Linux it spawns with a close-list computed before the
/// spawn, so a child started on one thread inherits the pipes and exit-watch
/// socket another thread created a moment earlier; `waitUntilExit` then waits
/// for an unrelated, long-lived daemon to exit too. Tests run in parallel, and
/// a suite on CI hung for good (that mechanism is the likely cause, not a proven
/// one). Here the child keeps only
/// fds 0–2 (`closefrom(3)` happens inside the spawn), the parent's pipe ends
/// are close-on-exec, signals start clean (`spawnWithCleanSignals`), and a
/// thread of our own waits for the exit with `waitid`.
public final class ChildProcess: Sendable {
    /// Where a standard stream of the child goes.
    public enum Stream: Sendable {
        case null
        /// A pipe whose other end the parent gets (`input`, `output`, `errors`).
        case pipe
        /// A file, created or truncated.
        case file(String)
    }

    /// How the child ended.
    public enum Termination: Sendable, Equatable {
        case exited(Int32)
        case signalled(Int32)

        /// The status a shell would report: the exit code, or 128 + the signal.
        public var status: Int32 {
            switch self {
            case .exited(let code): code
            case .signalled(let signal): 128 + signal
            }
        }

        /// The exit status, or nil when a signal ended it.
        public var exitStatus: Int32? {
            if case .exited(let status) = self { status } else { nil }
        }
    }

    public let pid: pid_t
    /// The parent's ends of `.pipe` streams.
    public let input: FileHandle?
    public let output: FileHandle?
    public let errors: FileHandle?

    /// The exit as the reaper saw it; a class of its own so the reaper thread
    /// can outlive this object (whose deinit kills a child still running).
    private final class Exit: Sendable {
        let termination = Mutex<Termination?>(nil)
        /// The child's peak resident memory (`VmHWM`) as last sampled while it ran.
        let peakResidentKiB = Mutex<Int?>(nil)
        let seen = DispatchSemaphore(value: 0)
    }
    private let exit = Exit()

    public init(
        _ path: String, _ arguments: [String], environment: [String: String],
        stdin: Stream = .null, stdout: Stream = .null, stderr: Stream = .null
    ) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var parentEnds: [Int32: Int32] = [:]
        var childEnds: [Int32] = []
        defer { childEnds.forEach { close($0) } }
        for (target, stream) in [(STDIN_FILENO, stdin), (STDOUT_FILENO, stdout), (STDERR_FILENO, stderr)] {
            switch stream {
            case .null:
                posix_spawn_file_actions_addopen(&actions, target, "/dev/null", target == STDIN_FILENO ? O_RDONLY : O_WRONLY, 0)
            case .file(let file):
                posix_spawn_file_actions_addopen(&actions, target, file, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
            case .pipe:
                var fds: [Int32] = [-1, -1]
                // Close-on-exec at once: only our own spawns (below) start processes here.
                guard pipe(&fds) == 0 else { throw ChildProcessError.spawn(path, errno) }
                fds.forEach { _ = fcntl($0, F_SETFD, FD_CLOEXEC) }
                let (childEnd, parentEnd) = target == STDIN_FILENO ? (fds[0], fds[1]) : (fds[1], fds[0])
                childEnds.append(childEnd)
                parentEnds[target] = parentEnd
                posix_spawn_file_actions_adddup2(&actions, childEnd, target)
            }
        }
        guard Self.addCloseFrom(&actions, 3) == 0 else { throw ChildProcessError.spawn(path, errno) }

        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid = pid_t()
        let spawned = spawnWithCleanSignals(&pid, path, &actions, argv, envp)
        guard spawned == 0 else {
            parentEnds.values.forEach { close($0) }
            throw ChildProcessError.spawn(path, spawned)
        }
        self.pid = pid
        input = parentEnds[STDIN_FILENO].map { FileHandle(fileDescriptor: $0, closeOnDealloc: true) }
        output = parentEnds[STDOUT_FILENO].map { FileHandle(fileDescriptor: $0, closeOnDealloc: true) }
        errors = parentEnds[STDERR_FILENO].map { FileHandle(fileDescriptor: $0, closeOnDealloc: true) }
        startReaper()
        startMemorySampler(path: path)
    }

    /// A product of the package (`Executables`), with the isolated environment plus `environment`.
    public convenience init(
        product: String, _ arguments: [String], environment: [String: String] = [:],
        stdin: Stream = .null, stdout: Stream = .null, stderr: Stream = .null
    ) throws {
        try self.init(
            Executables.path(product), arguments, environment: Executables.environment(environment),
            stdin: stdin, stdout: stdout, stderr: stderr)
    }

    /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34+), which Swift's
    /// Glibc module does not declare: the close happens in the child, at the
    /// spawn, so no descriptor another thread opens meanwhile can slip through.
    private static let addCloseFrom: @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32 = {
        guard let symbol = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np") else {
            fatalError("the tests need glibc 2.34 or later (posix_spawn_file_actions_addclosefrom_np)")
        }
        return unsafeBitCast(symbol, to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32).self)
    }()

    /// Waits on a thread of its own: `waitid(WNOWAIT)` sees the exit without
    /// reaping, so `signal` (under the same lock) can never hit a reused pid.
    private func startReaper() {
        let thread = Thread { [pid, exit] in
            var info = siginfo_t()
            while waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) != 0 && errno == EINTR {}
            exit.termination.withLock { termination in
                var status: Int32 = 0
                while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
                let code = status & 0x7f
                termination = code == 0 ? .exited((status >> 8) & 0xff) : .signalled(code)
            }
            exit.seen.signal()
        }
        thread.stackSize = 256 << 10
        thread.start()
    }

    /// Samples the child's peak resident memory (`VmHWM`, a high-water mark, so
    /// only growth in its last `memorySampleInterval` can be missed) once it runs
    /// `path`. Not `ru_maxrss` from `wait4`: a child spawned with `CLONE_VM`
    /// (posix_spawn) inherits the parent's high-water mark at its exec, so a small
    /// command started by a large test process would report the test's memory.
    /// Plain `read(2)` every 50 ms: the whole suite runs many children at once on
    /// two cores, and the sampling must cost next to nothing. Every 2 ms for the
    /// first 100 ms, so a command that ends in a few tens of milliseconds (an idle
    /// sync) is still seen running at least once.
    private func startMemorySampler(path: String) {
        let thread = Thread { [pid, exit] in
            var running = false
            var samples = 0
            while exit.termination.withLock({ $0 == nil }) {
                running = running || (Self.procFile("cmdline", of: pid)?.starts(with: path.utf8) ?? false)
                if running, let kib = Self.residentHighWaterKiB(of: pid) {
                    exit.peakResidentKiB.withLock { $0 = max($0 ?? 0, kib) }
                }
                samples += 1
                let quick = samples < Self.quickMemorySamples
                usleep(quick ? Self.quickMemorySampleIntervalMicroseconds : Self.memorySampleIntervalMicroseconds)
            }
        }
        thread.stackSize = 128 << 10
        thread.start()
    }

    private static let memorySampleIntervalMicroseconds: UInt32 = 50_000
    private static let quickMemorySampleIntervalMicroseconds: UInt32 = 2_000
    private static let quickMemorySamples = 50

    /// `VmHWM` of /proc/PID/status in KiB; nil once the process is gone (or a zombie).
    private static func residentHighWaterKiB(of pid: pid_t) -> Int? {
        guard let status = procFile("status", of: pid) else { return nil }
        let text = String(decoding: status, as: UTF8.self)
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }) else { return nil }
        return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
    }

    /// The first 4 KiB of /proc/PID/NAME (enough for `status` and a command line's start).
    private static func procFile(_ name: String, of pid: pid_t) -> [UInt8]? {
        let descriptor = open("/proc/\(pid)/\(name)", O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        guard count > 0 else { return nil }
        return Array(buffer[..<count])
    }

    /// Whether the child has not been seen to exit yet.
    public var isRunning: Bool { exit.termination.withLock { $0 == nil } }

    /// How it ended, if it has.
    public var termination: Termination? { exit.termination.withLock { $0 } }

    /// Its peak resident memory in KiB as sampled while it ran (nil if it ended before a sample).
    public var peakResidentKiB: Int? { exit.peakResidentKiB.withLock { $0 } }

    /// Sends `signal` unless the child has already been reaped.
    public func signal(_ signal: Int32) {
        exit.termination.withLock { termination in
            if termination == nil { _ = Glibc.kill(pid, signal) }
        }
    }

    /// Blocks until the child exits (on a thread that may block, never the pool's).
    @discardableResult
    public func waitBlocking() -> Termination {
        waitBlocking(timeout: nil)!
    }

    /// Blocks up to `timeout` for the exit; nil if it is still running.
    public func waitBlocking(timeout: Duration?) -> Termination? {
        let deadline: DispatchTime = timeout.map { .now() + $0.timeInterval } ?? .distantFuture
        guard exit.seen.wait(timeout: deadline) == .success else { return nil }
        exit.seen.signal()  // every later waiter passes too
        return termination
    }

    /// Waits for the exit off the cooperative pool.
    @discardableResult
    public func wait() async -> Termination {
        await onThread { self.waitBlocking() }
    }

    /// Waits up to `timeout` off the cooperative pool; nil if still running.
    public func wait(timeout: Duration) async -> Termination? {
        await onThread { self.waitBlocking(timeout: timeout) }
    }

    /// SIGKILL and reap: what a test does with a child it no longer needs.
    public func kill() {
        signal(SIGKILL)
        waitBlocking()
    }

    deinit {
        // A child outliving its test would hold ports and files: never leave one.
        if isRunning { signal(SIGKILL) }
    }
}

public enum ChildProcessError: Error, CustomStringConvertible {
    case spawn(String, Int32)

    public var description: String {
        switch self {
        case .spawn(let path, let code): "could not start \(path): \(String(cString: strerror(code)))"
        }
    }
}
