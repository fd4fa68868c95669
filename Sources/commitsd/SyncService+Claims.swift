import Foundation
import Logging
import MirrorCore
import ServiceLifecycle

/// The loop: commitsd takes its work from the store's queue of sync targets
/// (`SyncLeases`), whichever store it is. On PostgreSQL the queue is rows every
/// daemon sharing the database claims from (docs/SCALING.md); on SQLite it is
/// this daemon's, in memory, each claim the repository's `flock`.
///
/// - One daemon at a time lists the `OWNER/*` patterns' owners (the
///   discovery turn, `SyncLeases.takeDiscoveryTurn`, always this one's on
///   SQLite) and records each listing in the store; the others read those
///   listings every `followListings`, with their own patterns and filters, and
///   send no listing request.
/// - Every configured repository is followed by the queue (one target per
///   repository, whatever its branches: a claim covers them all, so two
///   branches of one repository never sync at once).
/// - Whenever the queue has a target due, a lane frees up or an event comes,
///   the daemon claims as many due targets as it has free lanes (at most
///   `firstSyncLanes` of them first syncs), under `lease_duration`, as `name`.
/// - A claimed repository's configured branches sync one after the other, each
///   write fenced by the claim (`SyncLeases.openFencedWriter`), while a lease
///   that runs out is renewed every third of it. A renewal refused cancels the
///   sync; a write refused ends it: either way the claim is lost, one log line
///   says so, and nothing more is written.
/// - The claim is then released, due again on the repository's interval (at
///   once after a step of a walk or a shutdown, so any daemon resumes it; at
///   the reset after a rate limit).
extension SyncService {
    /// How long an idle daemon waits at most before asking the queue for due work again.
    static let claimPoll: Duration = .seconds(1)
    /// How often a daemon that does not list the patterns' owners reads the
    /// listings the one that does records (no request; a few rows), and asks
    /// for the turn, which a daemon that stopped gave up.
    static let followListings: Duration = .seconds(5)

    func claimFromQueue(
        _ queue: ClaimQueue, startup: StoreStartup, events: AsyncStream<Event>, continuation: AsyncStream<Event>.Continuation
    ) async {
        var state = LoopState(settings: initial, logger: makeLogger(logLevelOverride ?? initial.configuration.logLevel))
        defer { state.writeSpentRequests(now: true) }
        var claims = ClaimState(configuration: initial.configuration, startup: startup)
        announceReady(state.settings, queue: queue, logger: state.logger)
        var timer: Task<Void, Never>?
        defer { timer?.cancel() }
        continuation.yield(.due)

        // Each lane's claim is a child task; leaving the group waits for them all
        // (a shutdown cancels them, and each stops at a page boundary).
        await withDiscardingTaskGroup { lanes in
            var iterator = events.cancelOnGracefulShutdown().makeAsyncIterator()
            while let event = await iterator.next() {
                take(event, claims: &claims, queue: queue, state: &state)
                state.writeSpentRequests(now: false)
                guard !Task.isShuttingDownGracefully else { continue }
                await claimRound(claims: &claims, queue: queue, state: state, lanes: &lanes) { continuation.yield($0) }
                timer?.cancel()
                timer = wakeUp(claims: claims, queue: queue).map { wait in
                    Task {
                        try? await Task.sleep(for: wait)
                        if !Task.isCancelled { continuation.yield(.due) }
                    }
                }
            }
            notifier.stopping(status: "stopping")
        }
        state.logger.info("stopping")
    }

    /// One turn of the loop after an event: discovery when due, the queue
    /// follows what the configuration now selects, and due targets are claimed
    /// unless a rate limit pauses them.
    private func claimRound(
        claims: inout ClaimState, queue: ClaimQueue, state: LoopState, lanes: inout DiscardingTaskGroup,
        yield: @escaping @Sendable (Event) -> Void
    ) async {
        await takeDiscoveryTurn(claims: &claims, queue: queue, state: state)
        let configuration = claims.selected(from: state.settings.configuration)
        if claims.followPending {
            webhookTargets?.publish(configuration, store: state.settings.store)
            claims.follow(configuration, in: queue, logger: state.logger)
        }
        if let until = claims.pausedUntil, until > .now { return }
        if let resume = reservePause(settings: state.settings) {
            logReservePause(resume, settings: state.settings, logger: state.logger)
            claims.pausedUntil = resume
            return
        }
        claimDue(claims: &claims, queue: queue, configuration: configuration, state: state, lanes: &lanes, yield: yield)
    }

    /// When the loop asks the queue again without an event: when it says a target
    /// is due, a pause or a discovery ends; never while every lane is busy (a lane
    /// that ends is an event).
    private func wakeUp(claims: ClaimState, queue: ClaimQueue) -> Duration? {
        let now = ContinuousClock.now
        var instants = [claims.discoveryDue]
        if let paused = claims.pausedUntil, paused > now {
            instants.append(paused)
        } else if claims.held < Self.lanes {
            instants.append(now + ((try? queue.with { $0.nextClaimable(within: Self.claimPoll) }) ?? Self.claimPoll))
        }
        return instants.compactMap { $0 }.min().map { max(.zero, $0 - now) }
    }

    /// The loop's log line and systemd's READY=1 with its STATUS.
    private func announceReady(_ settings: DaemonSettings, queue: ClaimQueue, logger: Logger) {
        let configuration = settings.configuration
        var metadata = readyMetadata(settings)
        metadata["patterns"] = "\(configuration.patterns.count)"
        var status = "ready: \(plural(configuration.repositories.count, "repository", "repositories"))"
        if !configuration.patterns.isEmpty { status += ", \(plural(configuration.patterns.count, "pattern"))" }
        if queue.leasesRunOut {
            metadata["daemon.name"] = "\(settings.name)"
            metadata["lease.duration"] = "\(DurationText.format(configuration.leaseDuration))"
            status += "; claiming from the shared queue as \(settings.name)"
        }
        logger.info("ready", metadata: metadata)
        notifier.ready(status: status)
    }

    private func logReservePause(_ resume: ContinuousClock.Instant, settings: DaemonSettings, logger: Logger) {
        logger.notice(
            "rate limit at the reserve; pausing until the reset",
            metadata: [
                "rate.remaining": "\(settings.client.usage.rateLimit?.remaining ?? 0)",
                "rate.reserve": "\(settings.configuration.rateLimitReserve)",
                "pause.seconds": "\(max(.zero, resume - .now).components.seconds)",
            ])
    }
}
