import Foundation
import Logging
import MirrorCore
import ServiceLifecycle

/// Polls every configured repository on its interval, one sync at a time.
///
/// - One task runs the plan (`SyncSchedule`): it sleeps until the next
///   repository is due, syncs it, and reschedules it on the interval its
///   activity calls for (`PollingPolicy`). A single shared `GitHubClient`
///   means one request at a time for the token.
/// - A walk stops after `pagesPerStep` pages and its repository goes back in
///   the queue behind those already due, so a long first sync never holds up
///   the others' polls by more than one step.
/// - At `rate_limit_reserve` the client refuses every request that would dip
///   into the reserve except conditional ones (with a token, a 304 is free):
///   polls go on, and a walk stops at a page boundary, its repository held
///   back until the reset, when it resumes from its checkpoint. Without a token
///   (a 304 costs a point), and at an exhausted limit, everything pauses.
/// - Graceful shutdown (SIGTERM/SIGINT) cancels the sync in progress. The
///   cancellation lands at an `await` between pages, and the engine commits
///   the pages it has stored (each with its checkpoint), so the store is always
///   left at a page boundary and the walk resumes on the next start.
/// - SIGHUP re-reads the configuration (`ConfigurationReloader`); a bad file is
///   logged and the running configuration kept.
struct SyncService: Service, CustomStringConvertible {
    let configurationPath: String
    let initial: DaemonSettings
    /// Keys of repositories that have synced before (spread out; others go first).
    let synced: Set<String>
    /// What the store tells of each synced repository's activity, by the same keys.
    let activity: [String: PollActivity]
    let notifier: SystemdNotifier
    /// A `--log-level` given on the command line beats `log_level` in the file.
    let logLevelOverride: Logger.Level?
    let makeLogger: @Sendable (Logger.Level) -> Logger
    /// Where each sync's outcome is recorded (served by `MetricsServer`).
    let metrics: MirrorMetrics

    /// How ServiceGroup names it in logs (the default would dump every setting).
    var description: String { "SyncService" }

    /// Pages one sync fetches before its repository goes back in the queue:
    /// 1,000 commits, a few seconds on a good connection.
    static let pagesPerStep = 10
    /// How often the requests spent are written to the store (and when commitsd stops).
    static let requestsWriteInterval: Duration = .seconds(30)

    enum Event: Sendable {
        case due
        case reload(DaemonSettings)
    }

    func run() async throws {
        let (events, continuation) = AsyncStream.makeStream(of: Event.self)
        await withDiscardingTaskGroup { group in
            group.addTask {
                await ConfigurationReloader(
                    path: configurationPath, initial: initial, notifier: notifier,
                    logger: makeLogger(logLevelOverride ?? initial.configuration.logLevel),
                    logLevelOverride: logLevelOverride
                )
                .run { continuation.yield(.reload($0)) }
            }
            if let interval = notifier.watchdogInterval {
                group.addTask {
                    while !Task.isCancelled {
                        notifier.watchdog()
                        try? await Task.sleep(for: interval / 2)
                    }
                }
            }
            await schedule(events: events, continuation: continuation)
            group.cancelAll()
        }
    }

    // MARK: - The plan

    private func schedule(events: AsyncStream<Event>, continuation: AsyncStream<Event>.Continuation) async {
        var settings = initial
        var logger = makeLogger(logLevelOverride ?? settings.configuration.logLevel)
        var plan = SyncSchedule(configuration: settings.configuration, synced: synced, activity: activity, now: .now)
        // Patterns (OWNER/*) are listed at once, then on their shortest interval.
        var discovery = PatternDiscovery()
        var discoveryDue: ContinuousClock.Instant? = settings.configuration.patterns.isEmpty ? nil : .now
        var timer: Task<Void, Never>?
        defer { timer?.cancel() }
        var lastStatus = "no sync yet"
        // What the token spent, for `commitsctl status --requests`.
        var ledger = RequestLedger(storePath: settings.storePath, client: settings.client)
        var ledgerWritten = ContinuousClock.now
        func writeSpentRequests(now: Bool) {
            guard now || .now - ledgerWritten >= Self.requestsWriteInterval else { return }
            do {
                try ledger.write(settings.client)
            } catch {
                logger.warning("could not record the requests spent; trying again later", metadata: ["error": "\(error)"])
            }
            ledgerWritten = .now
        }
        defer { writeSpentRequests(now: true) }

        func arm() {
            timer?.cancel()
            let dues = [plan.next?.due, discoveryDue].compactMap { $0 }
            guard let due = dues.min() else { return }
            timer = Task {
                try? await Task.sleep(until: due, clock: .continuous)
                if !Task.isCancelled { continuation.yield(.due) }
            }
        }

        logger.info(
            "ready",
            metadata: [
                "config.file": "\(configurationPath)", "store": "\(settings.storePath)", "api.url": "\(settings.apiURL)",
                "repos": "\(settings.configuration.repositories.count)", "patterns": "\(settings.configuration.patterns.count)",
                "token.source": "\(settings.tokenSource ?? "none")",
            ])
        var readyStatus = "ready: \(plural(settings.configuration.repositories.count, "repository", "repositories"))"
        if !settings.configuration.patterns.isEmpty { readyStatus += ", \(plural(settings.configuration.patterns.count, "pattern"))" }
        notifier.ready(status: readyStatus)
        continuation.yield(.due)

        var iterator = events.cancelOnGracefulShutdown().makeAsyncIterator()
        while let event = await iterator.next() {
            if case .reload(let new) = event {
                writeSpentRequests(now: true)
                settings = new.storePath == settings.storePath ? new : new.keepingStore(settings.storePath)
                ledger = RequestLedger(storePath: settings.storePath, client: settings.client)
                logger = makeLogger(logLevelOverride ?? settings.configuration.logLevel)
                plan.apply(discovery.expanded(settings.configuration), now: .now)
                discoveryDue = settings.configuration.patterns.isEmpty ? nil : .now
                notifier.status("configuration reloaded; \(lastStatus)")
            }
            if !Task.isShuttingDownGracefully, let due = discoveryDue, due <= .now, reservePause(settings: settings) == nil {
                switch await discovery.run(settings: settings, logger: logger) {
                case .finished:
                    discoveryDue = PatternDiscovery.interval(of: settings.configuration).map { .now + $0 }
                case .rateLimited(let resume):
                    plan.pause(until: resume)
                    discoveryDue = resume
                case .reserveHeld(let resume):
                    discoveryDue = resume
                }
                plan.apply(discovery.expanded(settings.configuration), now: .now)
            }
            while !Task.isShuttingDownGracefully, let job = plan.next, job.due <= .now {
                if let resume = reservePause(settings: settings) {
                    let wait = max(.zero, resume - .now)
                    logger.notice(
                        "rate limit at the reserve; pausing until the reset",
                        metadata: [
                            "rate.remaining": "\(settings.client.usage.rateLimit?.remaining ?? 0)",
                            "rate.reserve": "\(settings.configuration.rateLimitReserve)",
                            "pause.seconds": "\(wait.components.seconds)",
                        ])
                    plan.pause(until: resume)
                    break
                }
                let usageBefore = settings.client.usage
                let started = ContinuousClock.now
                let outcome = await sync(job.repository, settings: settings, logger: logger)
                let reader = openReader(settings: settings, logger: logger)
                record(
                    outcome, of: job.repository, reader: reader, settings: settings, usageBefore: usageBefore,
                    duration: ContinuousClock.now - started)
                switch outcome {
                case .stepEnded:
                    plan.requeue(job.repository, now: .now)
                case .reserveHeld(let resume):
                    plan.completed(job.repository, now: .now)
                    plan.postpone(job.repository, until: resume)
                case .synced(let report):
                    plan.completed(job.repository, now: .now, activity: reader.flatMap { activity(after: report, reader: $0) })
                default:
                    plan.completed(job.repository, now: .now)
                }
                switch outcome {
                case .synced(let report):
                    lastStatus = "last sync: \(report.summary)"
                case .stepEnded(let step):
                    lastStatus = "last sync: \(job.repository) walked \(plural(step.pages, "page")); continues after the polls due"
                case .skipped(let holder):
                    lastStatus = "last sync: \(job.repository) skipped (another writer: \(holder))"
                case .failed(let message):
                    lastStatus = "last sync: \(job.repository) failed: \(message)"
                case .rateLimited(let resume):
                    plan.pause(until: resume)
                    lastStatus = "last sync: \(job.repository) rate-limited; paused until the reset"
                case .reserveHeld:
                    lastStatus = "last sync: \(job.repository) held at the rate-limit reserve until the reset; polls go on"
                case .removed:
                    lastStatus = "last sync: \(job.repository) not synced (removed from mirroring)"
                case .interrupted:
                    notifier.stopping(status: "stopping: \(job.repository) interrupted at a page boundary")
                    logger.info("stopping")
                    return
                }
                notifier.status(lastStatus)
                writeSpentRequests(now: false)
            }
            arm()
        }
        notifier.stopping(status: "stopping")
        logger.info("stopping")
    }

    /// The store as a sync left it, for metrics and activity; `nil` (logged) when it cannot be read.
    private func openReader(settings: DaemonSettings, logger: Logger) -> MirrorReader? {
        do {
            return try MirrorReader(path: settings.storePath)
        } catch {
            logger.debug("could not read the store for metrics and activity", metadata: ["error": "\(error)"])
            return nil
        }
    }

    /// What a sync saw of its repository: its head, and when that was committed
    /// (`nil` when the store cannot say).
    private func activity(after report: SyncReport, reader: MirrorReader) -> PollActivity? {
        guard let head = report.headSHA else { return PollActivity(head: nil, headAge: nil) }
        guard let committedAt = try? reader.committerDate(ofCommit: head) else { return nil }
        return PollActivity(head: head, committedAt: committedAt, now: Date())
    }

    /// The metrics of one sync attempt; a store that cannot be read only costs the stored counts.
    private func record(
        _ outcome: Outcome, of repository: MirrorConfiguration.Repository, reader: MirrorReader?, settings: DaemonSettings,
        usageBefore: GitHubClient.Usage, duration: Duration
    ) {
        let usage = settings.client.usage
        metrics.recordRequests(since: usageBefore, now: usage)
        metrics.recordRateLimit(usage.rateLimit, token: settings.client.configuration.token)
        switch outcome {
        case .synced:
            metrics.recordSync(repository: repository.name, outcome: .success, duration: duration)
        case .skipped: metrics.recordSync(repository: repository.name, outcome: .skipped, duration: nil)
        case .failed: metrics.recordSync(repository: repository.name, outcome: .failure, duration: nil)
        case .rateLimited, .reserveHeld: metrics.recordSync(repository: repository.name, outcome: .rateLimited, duration: nil)
        case .interrupted: metrics.recordSync(repository: repository.name, outcome: .interrupted, duration: nil)
        case .removed: metrics.recordSync(repository: repository.name, outcome: .skipped, duration: nil)
        case .stepEnded: metrics.recordSync(repository: repository.name, outcome: .step, duration: nil)
        }
        if let reader { try? metrics.recordStored(reader, repository: repository.name) }
    }

    /// Without a token (a 304 costs a point there), when the last seen limit is
    /// at or below the reserve and not yet reset: the reset time.
    private func reservePause(settings: DaemonSettings) -> ContinuousClock.Instant? {
        let reserve = settings.configuration.rateLimitReserve
        guard reserve > 0, settings.tokenSource == nil, let rate = settings.client.usage.rateLimit, rate.remaining <= reserve,
            let resetAt = rate.resetAt, resetAt.timeIntervalSinceNow > 0
        else { return nil }
        return .now + .seconds(resetAt.timeIntervalSinceNow.rounded(.up) + 1)
    }

    // MARK: - One sync

    enum Outcome {
        case synced(SyncReport)
        case skipped(holder: String)
        case failed(String)
        case rateLimited(resume: ContinuousClock.Instant)
        /// Stopped at the rate-limit reserve with a token: only this repository
        /// waits for the reset, the others' polls (free 304s) go on.
        case reserveHeld(resume: ContinuousClock.Instant)
        case interrupted
        /// Removed from mirroring by the user (named in the file all the same).
        case removed
        /// The walk stopped after `pagesPerStep` pages; the next sync resumes it.
        case stepEnded(SyncStepEnded)
    }

    /// Syncs one repository (`RepositorySync`: lock, store, engine) and logs what
    /// happened and what commitsd does next; never throws.
    private func sync(_ repository: MirrorConfiguration.Repository, settings: DaemonSettings, logger: Logger) async -> Outcome {
        var logger = logger
        logger[metadataKey: "repo"] = "\(repository.name)"
        if let branch = repository.branch { logger[metadataKey: "branch"] = "\(branch)" }
        let sync = RepositorySync(
            storePath: settings.storePath, client: settings.client, logger: logger, holder: "commitsd",
            gitBootstrap: settings.configuration.gitBootstrap ? GitBootstrap() : nil)
        // A graceful shutdown cancels the sync; it stops at a page boundary.
        let outcome = await cancelWhenGracefulShutdown {
            await sync.run(repository.name, branch: repository.branch, pageLimit: Self.pagesPerStep)
        }
        switch outcome {
        case .synced(let report):
            return .synced(report)
        case .skipped(let holder):
            logger.notice(
                "skipped: another process is syncing this repository; commitsd tries again next interval",
                metadata: ["lock.holder": "\(holder)"])
            return .skipped(holder: holder)
        case .rateLimited(let error, let retryAt):
            let seconds = max(0, Int(retryAt.timeIntervalSinceNow.rounded(.up)))
            let pause: Logger.Metadata = ["pause.seconds": "\(seconds)", "pause.until": "\(ISO8601Timestamp.format(retryAt))"]
            if case .reserveReached(let reserve, _) = error, settings.tokenSource != nil {
                // The client stopped before the next request: the walk resumes from its checkpoint.
                logger.notice(
                    "stopped at the rate-limit reserve; this repository waits for the reset, polls of the others go on",
                    metadata: pause.merging(["rate.reserve": "\(reserve)"]) { $1 })
                return .reserveHeld(resume: .now + .seconds(seconds))
            } else if case .reserveReached(let reserve, _) = error {
                logger.notice(
                    "stopped at the rate-limit reserve; pausing all syncs until the reset",
                    metadata: pause.merging(["rate.reserve": "\(reserve)"]) { $1 })
            } else {
                logger.warning(
                    "rate limited; pausing all syncs until the reset, then every walk resumes from its checkpoint",
                    metadata: pause.merging(["error": "\(error)"]) { $1 })
            }
            return .rateLimited(resume: .now + .seconds(seconds))
        case .interrupted:
            logger.notice("sync interrupted by shutdown at a page boundary; it resumes on the next start")
            return .interrupted
        case .removed:
            logger.notice("not syncing a repository removed from mirroring (its history is kept); take it out of the configuration")
            return .removed
        case .stepEnded(let step):
            logger.info(
                "walk paused at a page boundary; it continues once the polls already due have run",
                metadata: ["sync.pages": "\(step.pages)"])
            return .stepEnded(step)
        case .failed(let failure) where Task.isShuttingDownGracefully:
            logger.notice("sync interrupted by shutdown", metadata: ["error": "\(failure)"])
            return .interrupted
        case .failed(let failure):
            let line = DaemonAdvice.line(for: failure.error)
            logger.error("sync failed; commitsd tries again next interval", metadata: ["error": "\(line)"])
            return .failed(line)
        }
    }
}
