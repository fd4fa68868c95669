import Foundation

/// The recognisable token the reliability tests authenticate with, and the
/// scans that prove it leaked nowhere: captured output, logs, store files, argv.
enum SecretScan {
    static let token = "ghp_SECRETSCAN_0123456789abcdef"

    /// Names of the `texts` that contain the token; empty when none does.
    static func leaks(in texts: [String: String]) -> [String] {
        texts.filter { $0.value.contains(token) }.map(\.key).sorted()
    }

    /// The store, its WAL and shared memory, byte for byte.
    static func leaks(inStoreAt path: String) -> [String] {
        [path, path + "-wal", path + "-shm"].filter { file in
            guard let bytes = FileManager.default.contents(atPath: file) else { return false }
            return bytes.range(of: Data(token.utf8)) != nil
        }
    }

    /// A running process's argv as every user can read it (`/proc/PID/cmdline`).
    static func commandLine(of pid: Int32) -> String? {
        guard let bytes = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") else { return nil }
        return String(decoding: bytes.map { $0 == 0 ? 0x20 : $0 }, as: UTF8.self)
    }
}

/// A finished run plus the argv the kernel showed for it while it ran.
struct ObservedRun {
    var result: ProcessResult
    var argv: String
}

/// Runs a product to completion like `run`, reading its `/proc/PID/cmdline` while it runs.
/// Blocking: call it from a thread, not from the cooperative pool.
func runObserved(_ executable: String, _ arguments: [String], environment: [String: String] = [:]) throws -> ObservedRun {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: Executables.path(executable))
    process.arguments = arguments
    process.environment = Executables.environment(environment)
    let out = Pipe(), err = Pipe()
    process.standardOutput = out
    process.standardError = err
    process.standardInput = FileHandle.nullDevice
    try process.run()
    let argv = SecretScan.commandLine(of: process.processIdentifier) ?? ""
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
    return ObservedRun(result: ProcessResult(status: process.terminationStatus,
                                             stdout: String(decoding: stdoutData, as: UTF8.self),
                                             stderr: String(decoding: stderrData, as: UTF8.self)),
                       argv: argv)
}

/// Runs `body` on its own thread (blocking process calls stay off the
/// cooperative pool) and resumes when it returns.
func onThread<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        let thread = Thread { continuation.resume(returning: body()) }
        thread.stackSize = 1 << 20
        thread.start()
    }
}

/// A tiny seeded generator (reproducible pauses and schedules).
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// `run` off the cooperative pool.
func runOffPool(_ executable: String, _ arguments: [String], environment: [String: String] = [:]) async throws -> ProcessResult {
    let result = await onThread { Result { try run(executable, arguments, environment: environment) } }
    return try result.get()
}

/// `runObserved` off the cooperative pool.
func runObservedOffPool(_ executable: String, _ arguments: [String], environment: [String: String] = [:]) async throws -> ObservedRun {
    let result = await onThread { Result { try runObserved(executable, arguments, environment: environment) } }
    return try result.get()
}
