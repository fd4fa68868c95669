import MirrorTestSupport
import Foundation
import MirrorCore
import MirrorSQLite
import SQLite
import Testing
import GitHubSim

/// A datagram socket standing in for systemd's `$NOTIFY_SOCKET`.
final class NotifySocket: @unchecked Sendable {
    let path: String
    private let descriptor: Int32

    init(path: String) throws {
        self.path = path
        descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8) + [0]) }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard descriptor >= 0, bound == 0 else { throw POSIXError(.EADDRNOTAVAIL) }
        var timeout = timeval(tv_sec: 0, tv_usec: 100_000)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    /// The next message, or nil after ~100 ms without one.
    func receive() -> String? {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = recv(descriptor, &buffer, buffer.count, 0)
        return count > 0 ? String(decoding: buffer[..<count], as: UTF8.self) : nil
    }

    /// Messages until one contains `text` or `timeout` passes.
    func receive(until text: String, timeout: Duration) -> [String] {
        var messages: [String] = []
        // `receive` itself blocks up to ~100 ms: no pause between polls.
        waitUntilBlocking(timeout: timeout, every: .zero) {
            guard let message = receive() else { return false }
            messages.append(message)
            return message.contains(text)
        }
        return messages
    }

    deinit { close(descriptor) }
}

/// Issue #4 acceptance 2: `READY=1` comes only after the store is open and migrated.
@Suite(.serialized) struct CommitsdReadinessTests {
    let directory: TemporaryDirectory
    init() throws { directory = try TemporaryDirectory() }

    @Test func readyOnlyAfterTheStoreIsOpenAndMigrated() async throws {
        try await withRunning(startSimulator([("widgets", 50)])) { simulator in
            let store = directory.path("commits.sqlite")
            let config = try directory.write(
                "config.yaml",
                """
                store: \(store)
                api_url: \(simulator.baseURL)
                repositories: [acme/widgets]
                """)
            // Hold the store's write lock: commitsd cannot migrate it until we let go.
            // (In WAL mode BEGIN EXCLUSIVE takes the write lock at once; no table is
            // created, or the file would be another program's database, which is refused.)
            let blocker = try Connection(path: store)
            try blocker.execute("BEGIN EXCLUSIVE")

            let socket = try NotifySocket(path: directory.path("notify.sock"))
            let daemon = try DaemonProcess(
                ["--config", config],
                environment: ["GITHUB_TOKEN": "t", "NOTIFY_SOCKET": socket.path, "WATCHDOG_USEC": "400000"],
                logPath: directory.path("commitsd.log"))
            defer { daemon.stop() }
            let early = socket.receive(until: "READY=1", timeout: .milliseconds(1500))
            #expect(!early.contains { $0.contains("READY=1") }, "READY before the store was migrated: \(early)")
            #expect(daemon.process.isRunning)

            try blocker.execute("COMMIT")
            let released = ContinuousClock.now
            let messages = socket.receive(until: "READY=1", timeout: .seconds(6))
            #expect(messages.last?.hasPrefix("READY=1\nSTATUS=ready: 1 repository") == true, "\(messages) \(daemon.log)")
            #expect(ContinuousClock.now - released < .seconds(6))
            // At READY the schema is current: a read-only open (which refuses a store needing migration) works.
            #expect(throws: Never.self) { try MirrorReader(path: store) }

            // Then: STATUS lines with the last sync, and the watchdog pings.
            let later = socket.receive(until: "STATUS=last sync: acme/widgets@main: 50 new", timeout: .seconds(10))
            #expect(later.last?.contains("STATUS=last sync: acme/widgets@main: 50 new") == true, "\(later)")
            #expect(socket.receive(until: "WATCHDOG=1", timeout: .seconds(2)).last == "WATCHDOG=1")

            daemon.signal(SIGTERM)
            #expect(await daemon.waitForExit(timeout: .seconds(5)) == 0)
            #expect(socket.receive(until: "STOPPING=1", timeout: .seconds(1)).last?.hasPrefix("STOPPING=1") == true)
        }
    }

    @Test func neverReadyWhenTheStoreCannotBeOpened() async throws {
        let notAStore = try directory.write("not-a-store.sqlite", String(repeating: "plain text\n", count: 300))
        let config = try directory.write(
            "config.yaml",
            """
            store: \(notAStore)
            api_url: http://127.0.0.1:9
            repositories: [acme/widgets]
            """)
        let socket = try NotifySocket(path: directory.path("notify.sock"))
        // Under systemd stderr goes to the journal ($JOURNAL_STREAM): lines carry a <priority> prefix.
        let daemon = try DaemonProcess(
            ["--config", config],
            environment: ["NOTIFY_SOCKET": socket.path, "JOURNAL_STREAM": "8:12345"],
            logPath: directory.path("commitsd.log"))
        defer { daemon.stop() }
        #expect(await daemon.waitForExit(timeout: .seconds(10)) == 1)
        #expect(socket.receive(until: "READY=1", timeout: .milliseconds(300)).isEmpty)
        #expect(daemon.log.hasPrefix("<2>critical cannot open the store error="), "\(daemon.log)")
        #expect(daemon.log.contains("is not a commits-mirror store"))
    }
}
