import Foundation

/// The `sd_notify(3)` protocol without libsystemd: one datagram per message
/// to the `AF_UNIX` socket named by `$NOTIFY_SOCKET` (a path, or `@name` for
/// the abstract namespace). A no-op when the variable is unset, so commitsd
/// runs the same outside systemd.
///
/// - SeeAlso: https://www.freedesktop.org/software/systemd/man/latest/sd_notify.html
struct SystemdNotifier: Sendable {
    private let address: [UInt8]?
    /// `$WATCHDOG_USEC` as a duration, when the watchdog is on for this process.
    let watchdogInterval: Duration?

    init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        if let socket = environment["NOTIFY_SOCKET"], !socket.isEmpty,
            socket.hasPrefix("/") || socket.hasPrefix("@")
        {
            var bytes = Array(socket.utf8)
            if bytes[0] == UInt8(ascii: "@") { bytes[0] = 0 }
            address = bytes
        } else {
            address = nil
        }
        let forUs = environment["WATCHDOG_PID"].flatMap { Int32($0) }.map { $0 == getpid() } ?? true
        if forUs, let microseconds = environment["WATCHDOG_USEC"].flatMap(Int64.init), microseconds > 0 {
            watchdogInterval = .microseconds(microseconds)
        } else {
            watchdogInterval = nil
        }
    }

    var isEnabled: Bool { address != nil }

    /// `READY=1`: start-up is complete (the store is open and migrated).
    func ready(status: String) { send("READY=1\nSTATUS=\(status)") }

    /// `STATUS=…`: shown by `systemctl status`.
    func status(_ text: String) { send("STATUS=\(text)") }

    func stopping(status: String) { send("STOPPING=1\nSTATUS=\(status)") }

    /// `WATCHDOG=1`: still alive.
    func watchdog() { send("WATCHDOG=1") }

    /// Sends one message; failures are ignored, as sd_notify does.
    func send(_ message: String) {
        guard let address else { return }
        let descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return }
        defer { close(descriptor) }
        var storage = sockaddr_un()
        storage.sun_family = sa_family_t(AF_UNIX)
        let capacity = MemoryLayout.size(ofValue: storage.sun_path)
        guard address.count < capacity else { return }
        withUnsafeMutableBytes(of: &storage.sun_path) { path in
            path.copyBytes(from: address)
        }
        // Abstract addresses are exactly as long as their name; paths include the NUL.
        let length = MemoryLayout<sa_family_t>.size + address.count + (address.first == 0 ? 0 : 1)
        let bytes = Array(message.utf8)
        _ = withUnsafePointer(to: &storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                bytes.withUnsafeBytes { buffer in
                    sendto(descriptor, buffer.baseAddress, buffer.count, Int32(MSG_NOSIGNAL), socketAddress, socklen_t(length))
                }
            }
        }
    }
}
