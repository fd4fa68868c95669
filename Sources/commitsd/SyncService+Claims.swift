import Foundation
import Logging
import MirrorCore
import ServiceLifecycle

/// commitsd on a queue shared by daemons on any host (a PostgreSQL store's
/// `sync_leases`; docs/SCALING.md): the queue is the plan.
///
/// - One daemon at a time lists the `OWNER/*` patterns' owners (the
///   discovery turn, `SyncLeases.takeDiscoveryTurn`) and records each listing
///   in the store; the others read those listings every `followListings`,
///   with their own patterns and filters, and send no listing request.
/// - Every configured repository is added to the queue (one target per
///   repository, whatever its branches: a claim covers them all, so two
///   branches of one repository never sync at once, as on a SQLite store).
/// - Every `claimPoll`, and whenever a lane frees up, the daemon claims as many
///   due targets as it has free lanes, under `lease_duration`, as `name`.
/// - A claimed repository's configured branches sync one after the other, each
///   write fenced by the claim (`SyncLeases.openFencedWriter`), while the lease
///   is renewed every third of it. A renewal refused cancels the sync; a write
///   refused ends it: either way the claim is lost, one log line says so, and
///   nothing more is written.
/// - The claim is then released, due again on the repository's interval (at
///   once after a step of a walk or a shutdown, so any daemon resumes it; at
///   the reset after a rate limit).
extension SyncService {
    /// How often an idle daemon asks the queue for due work.
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
        var claims = ClaimState(configuration: initial.configuration)
        announceClaiming(state.settings, logger: state.logger)
        let ticker = Task {
            while !Task.isCancelled {
                continuation.yield(.due)
                try? await Task.sleep(for: Self.claimPoll)
            }
        }
        defer { ticker.cancel() }

        await withDiscardingTaskGroup { lanes in
            var iterator = events.cancelOnGracefulShutdown().makeAsyncIterator()
            while let event = await iterator.next() {
                take(event, claims: &claims, queue: queue, state: &state)
                state.writeSpentRequests(now: false)
                guard !Task.isShuttingDownGracefully else { continue }
                await takeDiscoveryTurn(claims: &claims, queue: queue, state: state)
                let configuration = claims.discovery.expanded(state.settings.configuration)
                webhookTargets?.publish(configuration, store: state.settings.store)
                claims.queue(configuration, in: queue, logger: state.logger)
                if let until = claims.pausedUntil, until > .now { continue }
                if let resume = reservePause(settings: state.settings) {
                    claims.pausedUntil = resume
                    continue
                }
                claimDue(claims: &claims, queue: queue, configuration: configuration, state: state, lanes: &lanes) {
                    continuation.yield($0)
                }
            }
            notifier.stopping(status: "stopping")
        }
        state.logger.info("stopping")
    }

    /// The claim loop's log line and systemd's READY=1 with its STATUS.
    private func announceClaiming(_ settings: DaemonSettings, logger: Logger) {
        logger.info(
            "ready; claiming repositories from the store's shared queue",
            metadata: readyMetadata(settings).merging([
                "daemon.name": "\(settings.name)",
                "lease.duration": "\(DurationText.format(settings.configuration.leaseDuration))",
            ]) { $1 })
        notifier.ready(status: "ready: claiming from the shared queue as \(settings.name)")
    }

    /// Takes one event into the claim loop's state.
    private func take(_ event: Event, claims: inout ClaimState, queue: ClaimQueue, state: inout LoopState) {
        switch event {
        case .reload(let new):
            reload(new, state: &state)
            claims.discoveryDue = state.settings.configuration.patterns.isEmpty ? nil : .now
        case .finished(let finished):
            _ = noteFinished(finished, state: &state)
            if case .rateLimited(let resume) = finished.outcome { claims.pausedUntil = max(claims.pausedUntil ?? resume, resume) }
        case .claimEnded:
            claims.held -= 1
        case .hint(.repositoryChanged):
            if !state.settings.configuration.patterns.isEmpty { claims.discoveryDue = .now }
        case .hint(.push(let push, _)):
            queuePush(push, configuration: claims.discovery.expanded(state.settings.configuration), queue: queue, state: state)
        case .due:
            break
        }
    }

    /// When discovery is due: lists the patterns' owners if this daemon holds the
    /// turn, else reads the listings the one that does records.
    private func takeDiscoveryTurn(claims: inout ClaimState, queue: ClaimQueue, state: LoopState) async {
        let (settings, logger) = (state.settings, state.logger)
        guard let due = claims.discoveryDue, due <= .now, reservePause(settings: settings) == nil else { return }
        let turn: Bool
        do {
            turn = try queue.with { try $0.takeDiscoveryTurn() }
        } catch {
            claims.trouble("could not ask the shared queue whose turn it is to list; trying again", error, logger: logger)
            turn = false
        }
        if turn != claims.listsPatterns {
            logger.notice(
                turn
                    ? "this daemon lists the patterns' owners for every daemon sharing the store"
                    : "another daemon lists the patterns' owners; this one follows the listings it records")
            claims.listsPatterns = turn
        }
        guard turn else {
            await claims.discovery.adoptStoredListings(settings: settings, logger: logger)
            claims.discoveryDue = .now + Self.followListings
            return
        }
        switch await claims.discovery.run(settings: settings, logger: logger) {
        case .finished: claims.discoveryDue = PatternDiscovery.interval(of: settings.configuration).map { .now + $0 }
        case .rateLimited(let resume): (claims.pausedUntil, claims.discoveryDue) = (resume, resume)
        case .reserveHeld(let resume): claims.discoveryDue = resume
        }
    }

    /// Claims as many due repositories as lanes are free, each synced in a lane of its own.
    private func claimDue(
        claims: inout ClaimState, queue: ClaimQueue, configuration: MirrorConfiguration, state: LoopState,
        lanes: inout DiscardingTaskGroup, yield: @escaping @Sendable (Event) -> Void
    ) {
        let (settings, logger) = (state.settings, state.logger)
        let free = Self.lanes - claims.held
        guard free > 0 else { return }
        let (name, lease) = (settings.name, settings.configuration.leaseDuration)
        let claimed: [SyncLease]
        do {
            claimed = try queue.with { try $0.claimDue(owner: name, limit: free, duration: lease) }
        } catch {
            claims.trouble("could not claim from the shared queue; trying again every second", error, logger: logger)
            return
        }
        if claims.failing { logger.notice("the shared queue answers again") }
        claims.failing = false
        for claim in claimed {
            claims.held += 1
            metrics.recordLease(.claim)
            if let former = claim.takenOverFrom, former != claim.owner { metrics.recordLease(.takeover) }
            lanes.addTask {
                await work(on: claim, queue: queue, configuration: configuration, settings: settings, logger: logger) {
                    yield(.finished($0))
                }
                yield(.claimEnded(claim.target))
            }
        }
    }

    /// A push webhook on the shared queue: the repositories it is for are due
    /// now for whichever daemon claims next (`SyncLeases.markPushed`).
    private func queuePush(
        _ push: WebhookPush, configuration: MirrorConfiguration, queue: ClaimQueue, state: LoopState
    ) {
        let (settings, logger) = (state.settings, state.logger)
        let metadata: Logger.Metadata = ["repo": "\(push.repositoryName)", "branch": "\(push.branch ?? "")"]
        // A push to a branch the globs select: the repository's claim lists its branches again.
        let candidates = Self.candidates(for: push, in: configuration)
        let matched = Self.repositories(pushedBy: push, among: candidates, store: settings.store, logger: logger)
        guard !matched.isEmpty else {
            // The receiver matched it already (and counts the pushes it does not); a reload may have removed it since.
            logger.info("push webhook for a repository or branch no longer mirrored; ignored", metadata: metadata)
            return
        }
        do {
            try queue.with { try $0.markPushed(Array(Set(matched.map(\.name)))) }
            logger.info("push webhook: due now on the shared queue", metadata: metadata)
            metrics.recordPush(.dueNow)
        } catch {
            logger.warning(
                "push webhook: could not mark the repository due on the shared queue; its interval will find the push",
                metadata: metadata.merging(["error": "\(error)"]) { $1 })
        }
    }
}
