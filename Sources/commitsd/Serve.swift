import ArgumentParser
import Foundation
import Logging
import MirrorCore
import NIOCore
import Prometheus
import ServiceLifecycle
import UnixSignals

extension Commitsd {
    struct Serve: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "serve",
            abstract: "Poll every configured repository on its interval until SIGTERM.",
            discussion: """
                Start-up: load and validate the configuration, open the store and run its migrations, \
                then report ready (READY=1 to $NOTIFY_SOCKET under systemd). A PostgreSQL store that \
                does not open yet is waited for (backoff 1 s doubling to 30 s; /readyz answers 503 \
                meanwhile). SIGHUP reloads the configuration; SIGTERM or SIGINT stops at a page \
                boundary and exits 0.
                """
        )

        @Option(
            help:
                "The configuration file (default: $COMMITS_MIRROR_CONFIG, else $CONFIGURATION_DIRECTORY/config.yaml, else /etc/commits-mirror/config.yaml)."
        )
        var config: String?

        @Flag(
            help:
                "Validate the configuration (and that the token can be read), print a summary and, on a PostgreSQL store, how it compares with the daemons' shared queue; exit: 0 valid, 2 invalid."
        )
        var checkConfig = false

        @Option(help: "Log level, overriding log_level in the file (trace, debug, info, notice, warning, error, critical).")
        var logLevel: Logger.Level?

        func validate() throws {
            // `--config ''` (an unset variable in a unit file) must not fall back to another file.
            if config?.isEmpty == true {
                throw ValidationError("--config is empty; give the path of a configuration file, or leave --config out")
            }
        }

        func run() async throws {
            guard let path = MirrorConfiguration.locate(explicit: config) else {
                fail(
                    "no configuration file: pass --config PATH, set $COMMITS_MIRROR_CONFIG, or create \(MirrorConfiguration.systemPath) (see config/commits-mirror.example.yaml)"
                )
                throw ExitCode(DaemonExit.badConfiguration)
            }
            let bootstrap = makeLogger(level: logLevel ?? MirrorConfiguration.defaultLogLevel)
            let settings: DaemonSettings
            let webhookTimeout: Int?
            do {
                settings = try DaemonSettings.load(path: path, logger: bootstrap)
                webhookTimeout = try EnvironmentVariables.process.testSeconds(TestTimings.webhookTimeoutSeconds)
            } catch {
                fail("\(error)")
                throw ExitCode(DaemonExit.badConfiguration)
            }
            if checkConfig {
                printCheckedConfiguration(settings, path: path)
                return
            }

            let level = logLevel ?? settings.configuration.logLevel
            let logger = makeLogger(level: level)
            let registry = PrometheusCollectorRegistry()
            var factory = PrometheusMetricsFactory(registry: registry)
            factory.durationHistogramBuckets[MirrorMetrics.syncDurationName] = MirrorMetrics.syncDurationBuckets
            factory.durationHistogramBuckets[MirrorMetrics.pushToStoredName] = MirrorMetrics.pushToStoredBuckets
            let metrics = MirrorMetrics(factory: factory)
            let started = StartupState()
            let startupSignals = StartupSignals.installed
            let startup = try openStore(settings, started: started, metrics: metrics, logger: logger)
            startupSignals.storeOpened()
            var service = SyncService(
                configurationPath: path, initial: settings, startup: startup, started: started, notifier: SystemdNotifier(),
                logLevelOverride: logLevel, makeLogger: { makeLogger(level: $0) }, metrics: metrics)
            var webhooks: WebhookServer?
            // Like metrics_listen, webhook_listen and its secret take effect on restart.
            if let address = settings.configuration.webhookListen, let secret = settings.webhookSecret {
                let (hints, continuation) = AsyncStream.makeStream(of: WebhookHint.self, bufferingPolicy: .bufferingNewest(1024))
                let targets = WebhookTargets()
                (service.hints, service.webhookTargets) = (hints, targets)
                webhooks = WebhookServer(
                    address: address, secret: secret, metrics: metrics, logger: logger, targets: targets,
                    hints: { continuation.yield($0) })
                if let webhookTimeout { webhooks?.requestTimeout = .seconds(Int64(webhookTimeout)) }
            }
            var services: [any Service] = [service]
            if let webhooks, let address = settings.configuration.webhookListen {
                services.append(StopsTheDaemonOnFailure(service: webhooks, purpose: "receiving webhooks on \(address)", logger: logger))
            }
            // A changed metrics_listen, like a changed store, takes effect on restart.
            if let address = settings.configuration.metricsListen {
                let server = MetricsServer(address: address, registry: registry, store: settings.store, started: started, logger: logger)
                services.append(StopsTheDaemonOnFailure(service: server, purpose: "serving metrics on \(address)", logger: logger))
            }
            // Last, so the group, which shuts its services down last first, starts its clock first.
            services.append(ShutdownDeadline(logger: logger))
            var groupConfiguration = ServiceGroupConfiguration(
                services: services, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
            groupConfiguration.maximumGracefulShutdownDuration = .seconds(10)
            // No fatal error for a call cancellation cannot reach: ShutdownDeadline ends the process.
            groupConfiguration.maximumCancellationDuration = nil
            do {
                try await ServiceGroup(configuration: groupConfiguration).run()
            } catch {
                logger.critical("stopped on an error", metadata: ["error": "\(error)"])
                throw ExitCode.failure
            }
        }

        /// What `--check-config` prints: the file's settings in one line, then how
        /// they compare with the shared queue's, if the store can be read now.
        private func printCheckedConfiguration(_ settings: DaemonSettings, path: String) {
            let configuration = settings.configuration
            var summary =
                "\(path): valid; store \(settings.store); API \(settings.apiURL); token from \(settings.tokenSource ?? "nowhere (unauthenticated: 60 requests/hour)")"
            if !configuration.repositories.isEmpty || (configuration.patterns.isEmpty && configuration.branchGlobs.isEmpty) {
                summary +=
                    "; \(plural(configuration.repositories.count, "repository", "repositories")): \(configuration.repositories.map(\.description).joined(separator: ", "))"
            }
            if !configuration.patterns.isEmpty {
                summary +=
                    "; \(plural(configuration.patterns.count, "pattern")): \(configuration.patterns.map(\.description).joined(separator: ", "))"
            }
            if !configuration.branchGlobs.isEmpty {
                summary += "; branches listed on every poll: \(configuration.branchGlobs.map(\.description).joined(separator: "; "))"
            }
            let range = configuration.adaptiveRange
            if range.minimum != range.maximum {
                summary +=
                    "; adaptive polling between \(DurationText.format(range.minimum)) and \(DurationText.format(range.maximum)) (entries with their own interval stay on it)"
            }
            if let address = configuration.webhookListen, let secret = settings.webhookSecret {
                summary += "; webhooks at http://\(address)/webhook, secret from \(secret.source)"
            }
            print(summary)
            // The file is valid whatever the database answers: a store that cannot be read now is a note.
            do {
                for line in try SharedQueueCheck.read(settings)?.lines ?? [] { print(line) }
            } catch {
                print("shared queue: not compared with this file: \(DaemonAdvice.line(for: error))")
            }
        }

        /// Opens the store before readiness: the store exists and is migrated. A file
        /// that does not open will not open by waiting: exit 1. A store on a database
        /// server may be down for now: the services start (/healthz answers, /readyz
        /// says 503) and the sync service waits for it.
        private func openStore(
            _ settings: DaemonSettings, started: StartupState, metrics: MirrorMetrics, logger: Logger
        ) throws -> StoreAtStart {
            do {
                let store = try StoreStartup.read(settings.store, metrics: metrics, logger: logger)
                started.markDone()
                return .opened(store)
            } catch let error where settings.store.isOnServer {
                let reason = DaemonAdvice.line(for: error)
                logger.error(StoreStartup.waitingMessage, metadata: ["store": "\(settings.store)", "error": "\(reason)"])
                return .notYet(reason: reason)
            } catch {
                logger.critical("cannot open the store", metadata: ["store": "\(settings.store)", "error": "\(error)"])
                throw ExitCode(DaemonExit.startupFailed)
            }
        }

        private func fail(_ message: String) {
            FileHandle.standardError.write(Data("commitsd: error: \(message)\n".utf8))
        }
    }
}

enum DaemonExit {
    static let startupFailed: Int32 = 1
    static let badConfiguration: Int32 = 2
}

func makeLogger(level: Logger.Level) -> Logger {
    var logger = Logger(label: "commitsd") { _ in KeyValueLogHandler(level: level) }
    logger.logLevel = level
    return logger
}

extension Logger.Level: @retroactive ExpressibleByArgument {}
