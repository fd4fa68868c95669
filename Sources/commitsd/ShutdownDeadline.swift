import Foundation
import Logging
import MirrorCore
import ServiceLifecycle

/// The bound on how long commitsd takes to stop, whatever its syncs are doing.
///
/// A sync may be inside a call that cancellation cannot reach: libpq waiting on
/// a database server that hangs, SQLite waiting for another process's lock, a
/// transfer stalled in libcurl. ServiceGroup would wait for it and then end the
/// process with a fatal error (a core dump, and systemd restarting the unit in
/// a loop). Instead, from the moment the shutdown begins (a signal, or a
/// service that failed), this gives the services `budget` to end, and then ends
/// the process itself with the status the shutdown deserves: 0 after a signal,
/// 1 after a failure. What an unfinished call had open is rolled back by the
/// store: a PostgreSQL server when the connection closes, SQLite's journal at
/// the next open; nothing half-written is kept.
struct ShutdownDeadline: Service, CustomStringConvertible {
    /// Well inside the unit's `TimeoutStopSec` (systemd/commitsd.service).
    static let budget: Duration = .seconds(20)

    let budget: Duration
    let logger: Logger

    init(budget: Duration = Self.budget, logger: Logger) {
        self.budget = budget
        self.logger = logger
    }

    /// How ServiceGroup names it in logs (the default would dump the logger).
    var description: String { "ShutdownDeadline" }

    func run() async throws {
        let failed: Bool
        do {
            try await gracefulShutdown()
            failed = false
        } catch {
            failed = true
        }
        let (budget, logger) = (budget, logger)
        let thread = Thread {
            Thread.sleep(forTimeInterval: Double(budget.components.seconds) + Double(budget.components.attoseconds) / 1e18)
            logger.warning(
                "stopping took longer than \(DurationText.format(budget)): a sync is inside a call to the store or the network that does not return; exiting without it (what it had open is rolled back, nothing stored is lost)"
            )
            _exit(failed ? 1 : 0)
        }
        thread.name = "commitsd shutdown deadline"
        thread.start()
    }
}

/// A service whose failure (a listener that cannot bind) is said at
/// `critical` before the group stops for it: ServiceGroup itself only logs it
/// at debug, and an operator must read why the daemon did not start.
struct StopsTheDaemonOnFailure: Service, CustomStringConvertible {
    let service: any Service
    /// What the service does, for the line: "serving metrics on 127.0.0.1:9464".
    let purpose: String
    let logger: Logger

    /// The service's own name in ServiceGroup's logs.
    var description: String { "\(service)" }

    func run() async throws {
        do {
            try await service.run()
        } catch {
            if !(error is CancellationError) && !Task.isCancelled {
                logger.critical("\(purpose) failed; commitsd stops", metadata: ["error": "\(error)"])
            }
            throw error
        }
    }
}
