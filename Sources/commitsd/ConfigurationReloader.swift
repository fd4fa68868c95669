import Logging
import MirrorCore
import ServiceLifecycle
import UnixSignals

/// SIGHUP: re-read the configuration file. A valid file is logged change by
/// change and handed to the scheduler; an invalid one is logged with its
/// one-line reason and the running configuration stays in force.
struct ConfigurationReloader: Sendable {
    let path: String
    let initial: DaemonSettings
    let notifier: SystemdNotifier
    let logger: Logger
    /// `--log-level`, which a reload does not change.
    let logLevelOverride: Logger.Level?

    func run(apply: @Sendable (DaemonSettings) -> Void) async {
        var current = initial
        var logger = logger
        let signals = await UnixSignalsSequence(trapping: .sighup)
        for await _ in signals.cancelOnGracefulShutdown() {
            logger.notice("SIGHUP: reloading the configuration", metadata: ["config.file": "\(path)"])
            let new: DaemonSettings
            do {
                new = try DaemonSettings.load(path: path, logger: logger)
            } catch {
                logger.error(
                    "configuration reload failed; keeping the running configuration",
                    metadata: ["error": "\(error)"])
                notifier.status("configuration reload failed, running with the previous one: \(error)")
                continue
            }
            let changes = current.changes(to: new)
            if changes.isEmpty {
                logger.notice("configuration reloaded: nothing changed")
            }
            for change in changes {
                logger.notice("configuration changed", metadata: ["config.change": "\(change)"])
            }
            if new.store != current.store {
                logger.warning(
                    "the store path changed; it takes effect after a restart",
                    metadata: [
                        "store": "\(current.store)", "store.new": "\(new.store)",
                    ])
            }
            if new.configuration.metricsListen != current.configuration.metricsListen {
                logger.warning(
                    "metrics_listen changed; it takes effect after a restart",
                    metadata: [
                        "metrics.listen": "\(current.configuration.metricsListen?.description ?? "off")",
                        "metrics.listen.new": "\(new.configuration.metricsListen?.description ?? "off")",
                    ])
            }
            current = new.keepingStore(current.store)
            logger.logLevel = logLevelOverride ?? current.configuration.logLevel
            apply(current)
        }
    }
}
