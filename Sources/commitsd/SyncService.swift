import Foundation
import Logging
import MirrorCore
import ServiceLifecycle

/// Polls every configured repository on its interval, up to `lanes` syncs at a time.
///
/// - One task runs the loop (`claimFromQueue`) over the store's queue of sync
///   targets (`SyncLeases`): it claims each repository when the queue has it
///   due, syncs it in a lane of its own, and, once the sync ends, releases it
///   due again on the interval its activity calls for (`PollingPolicy`). A
///   single shared `GitHubClient` means one request at a time for the token;
///   syncs in other lanes wait for each other's requests, not for each other's
///   whole syncs.
/// - A walk stops after `pagesPerStep` pages and its repository goes back in
///   the queue behind those already due, so a long first sync never holds up
///   the others' polls by more than one step.
/// - A first sync may read its history over git, one step as long as the pack
///   (bounded by `GitFetchPace`). First syncs take at most `firstSyncLanes`
///   lanes, so a lane is always left for the polls of repositories synced
///   before: a git server that stalls holds up only its own repository and
///   the first syncs queued behind it.
/// - At `rate_limit_reserve` the client refuses every request that would dip
///   into the reserve except conditional ones (with a token, a 304 is free):
///   polls go on, and a walk stops at a page boundary, its repository held
///   back until the reset, when it resumes from its checkpoint. Without a token
///   (a 304 costs a point), and at an exhausted limit, everything pauses.
/// - Graceful shutdown (SIGTERM/SIGINT) cancels the syncs in progress. The
///   cancellation lands at an `await` between pages, and the engine commits
///   the pages it has stored (each with its checkpoint), so the store is always
///   left at a page boundary and the walk resumes on the next start.
/// - SIGHUP re-reads the configuration (`ConfigurationReloader`); a bad file is
///   logged and the running configuration kept.
struct SyncService: Service, CustomStringConvertible {
    let configurationPath: String
    let initial: DaemonSettings
    /// What the store said at start (which repositories synced before, and how
    /// active each is), or why it did not open yet (`run` then waits for it).
    let startup: StoreAtStart
    /// Marked once the store has opened at start (`/readyz` is 503 until then).
    let started: StartupState
    let notifier: SystemdNotifier
    /// A `--log-level` given on the command line beats `log_level` in the file.
    let logLevelOverride: Logger.Level?
    let makeLogger: @Sendable (Logger.Level) -> Logger
    /// Where each sync's outcome is recorded (served by `MetricsServer`).
    let metrics: MirrorMetrics
    /// What verified webhook deliveries ask for (`WebhookServer`); `nil` without `webhook_listen`.
    var hints: AsyncStream<WebhookHint>? = nil
    /// Where the plan publishes what it mirrors, for the webhook receiver to match pushes against.
    var webhookTargets: WebhookTargets? = nil
    /// The branch listings whose missing branches this daemon has settled (`claimedBranches`).
    let settledListings = SettledListings()

    /// How ServiceGroup names it in logs (the default would dump every setting).
    var description: String { "SyncService" }

    /// Pages one sync fetches before its repository goes back in the queue:
    /// 1,000 commits, a few seconds on a good connection.
    static let pagesPerStep = 10
    /// How often the requests spent are written to the store (and when commitsd stops).
    static let requestsWriteInterval: Duration = .seconds(30)
    /// How long the loop reads metrics through one reader before it opens another
    /// (a store file replaced meanwhile is then read again).
    static let readerReuse: Duration = .seconds(30)
    /// How often the daemon hands freed memory back to the system (`MallocArenas.trim`).
    static let mallocTrimInterval: Duration = .seconds(10)
    /// Syncs under way at once. Two: every sync writes the one store, whose
    /// write lock takes one transaction at a time; a second lane polls while the
    /// first walks or waits for the network. Their store calls block
    /// `DedicatedThreads.store` (four), never Swift's cooperative pool.
    static let lanes = 2
    /// Of `lanes`, how many may run first syncs (the only ones that read over git).
    static let firstSyncLanes = 1

    enum Event: Sendable {
        case due
        case reload(DaemonSettings)
        /// A verified webhook delivery's hint.
        case hint(WebhookHint)
        /// A lane's sync ended.
        case finished(Finished)
        /// A claim was released or lost (`claimFromQueue`).
        case claimEnded(SyncTarget)
    }

    struct Finished: Sendable {
        var repository: MirrorConfiguration.Repository
        var outcome: Outcome
        var started: ContinuousClock.Instant
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
            if let hints {
                group.addTask {
                    for await hint in hints { continuation.yield(.hint(hint)) }
                }
            }
            if let interval = notifier.watchdogInterval {
                group.addTask {
                    while !Task.isCancelled {
                        notifier.watchdog()
                        try? await Task.sleep(for: interval / 2)
                    }
                }
            }
            // The plan, its lanes and their store calls run on the store's threads;
            // the reloader and the watchdog stay on the cooperative pool, so a
            // store that blocks never silences systemd's watchdog.
            await DedicatedThreads.store.run {
                guard let startup = await waitForStartup() else { return }
                started.markDone()
                guard let queue = await openQueue() else { return }
                await claimFromQueue(queue, startup: startup, events: events, continuation: continuation)
            }
            group.cancelAll()
        }
    }

    /// The store as it was at start, or once it opens (a database server that was
    /// down). Meanwhile systemd hears READY=1, STATUS saying commitsd waits: its start
    /// timeout would otherwise kill commitsd and restart it, again and again, while
    /// the server is down; `/readyz` is what says commitsd is not serving yet.
    /// `nil`: shut down while waiting.
    private func waitForStartup() async -> StoreStartup? {
        let reason: String
        switch startup {
        case .opened(let opened): return opened
        case .notYet(let why): reason = why
        }
        notifier.ready(status: "waiting for the store to open; the log says why")
        let logger = makeLogger(logLevelOverride ?? initial.configuration.logLevel)
        let startup = await StoreStartup.waitFor(initial.store, firstFailure: reason, metrics: metrics, logger: logger)
        if startup == nil { logger.info("stopping") }
        return startup
    }

    /// What the "ready" line says of the settings in force.
    func readyMetadata(_ settings: DaemonSettings) -> Logger.Metadata {
        [
            "config.file": "\(configurationPath)", "store": "\(settings.store)", "api.url": "\(settings.apiURL)",
            "repos": "\(settings.configuration.repositories.count)", "token.source": "\(settings.tokenSource ?? "none")",
        ]
    }

    /// The store as a sync left it, for metrics and activity; `nil` (logged) when it cannot be read.
    func openReader(settings: DaemonSettings, logger: Logger) -> (any MirrorReading)? {
        do {
            return try settings.store.openCommitReader()
        } catch {
            logger.debug("could not read the store for metrics and activity", metadata: ["error": "\(error)"])
            return nil
        }
    }

    /// What a sync saw of its repository: its head, and when that was committed
    /// (`nil` when the store cannot say).
    func activity(after report: SyncReport, reader: any MirrorReading) -> PollActivity? {
        guard let head = report.headSHA else { return PollActivity(head: nil, headAge: nil) }
        guard let committedAt = try? reader.committerDate(ofCommit: head) else { return nil }
        return PollActivity(head: head, committedAt: committedAt, now: Date())
    }

    /// The metrics of one sync attempt; a store that cannot be read only costs the stored counts.
    /// `counted`: the shared client's usage the metrics hold so far (lanes overlap, so
    /// requests are counted since then, not per sync), moved on to now.
    func record(
        _ outcome: Outcome, of repository: MirrorConfiguration.Repository, reader: (any MirrorReading)?, settings: DaemonSettings,
        counted: inout GitHubClient.Usage, duration: Duration
    ) {
        let usage = settings.client.usage
        metrics.recordRequests(since: counted, now: usage)
        counted = usage
        metrics.recordRateLimit(usage.rateLimit, credentialKind: settings.client.configuration.credentialKind)
        metrics.recordPollingInterval(repository: repository.name, policy: settings.configuration.pollingPolicy(for: repository))
        // What the store holds before the outcome: a scrape that sees this sync counted sees its commits too.
        if let reader {
            try? metrics.recordStored(reader, repository: repository.name)
            try? metrics.recordMessageIndexLag(reader)
        }
        switch outcome {
        case .synced:
            metrics.recordSync(repository: repository.name, outcome: .success, duration: duration)
        case .skipped: metrics.recordSync(repository: repository.name, outcome: .skipped, duration: nil)
        case .failed: metrics.recordSync(repository: repository.name, outcome: .failure, duration: nil)
        case .rateLimited, .reserveHeld: metrics.recordSync(repository: repository.name, outcome: .rateLimited, duration: nil)
        case .interrupted: metrics.recordSync(repository: repository.name, outcome: .interrupted, duration: nil)
        case .removed, .leaseLost: metrics.recordSync(repository: repository.name, outcome: .skipped, duration: nil)
        case .stepEnded: metrics.recordSync(repository: repository.name, outcome: .step, duration: nil)
        }
        // Every finished sync is recorded here.
        MallocArenas.trim(atMostEvery: Self.mallocTrimInterval)
    }

    /// Without a token (a 304 costs a point there), when the last seen limit is
    /// at or below the reserve and not yet reset: the reset time.
    func reservePause(settings: DaemonSettings) -> ContinuousClock.Instant? {
        let reserve = settings.configuration.rateLimitReserve
        guard reserve > 0, settings.tokenSource == nil, let rate = settings.client.usage.rateLimit, rate.remaining <= reserve,
            let resetAt = rate.resetAt, resetAt.timeIntervalSinceNow > 0
        else { return nil }
        return .now + .seconds(resetAt.timeIntervalSinceNow.rounded(.up) + 1)
    }
}
