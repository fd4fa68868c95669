import Foundation
import Logging
import MirrorCore
import ServiceLifecycle

extension SyncService {
    /// Takes one event into the loop's state.
    func take(_ event: Event, claims: inout ClaimState, queue: ClaimQueue, state: inout LoopState) {
        switch event {
        case .reload(let new):
            reload(new, state: &state)
            claims.discoveryDue = state.settings.configuration.patterns.isEmpty ? nil : .now
            claims.selectionChanged()
        case .finished(let finished):
            noteFinished(finished, claims: &claims, state: &state)
        case .claimEnded:
            claims.held -= 1
        case .hint(.repositoryChanged):
            if !state.settings.configuration.patterns.isEmpty { claims.discoveryDue = .now }
        case .hint(.push(let push, let receivedAt)):
            queuePush(push, receivedAt: receivedAt, claims: &claims, queue: queue, state: state)
        case .due:
            break
        }
    }

    /// A lane's sync ended: its metrics, the status line, whether the repository has
    /// synced now, how long a push took to be stored, and a rate limit's pause.
    private func noteFinished(_ finished: Finished, claims: inout ClaimState, state: inout LoopState) {
        noteFinished(finished, state: &state)
        let key = finished.repository.name.description.lowercased()
        switch finished.outcome {
        case .synced:
            claims.hasSynced.insert(key)
            if let pushed = claims.pushedAt[key], finished.started >= pushed {
                metrics.recordPushToStored(.now - pushed)
                claims.pushedAt[key] = nil
            }
        case .rateLimited(let resume):
            claims.pausedUntil = max(claims.pausedUntil ?? resume, resume)
        default:
            break
        }
    }

    /// When discovery is due: lists the patterns' owners if this daemon holds the
    /// turn, else reads the listings the one that does records.
    func takeDiscoveryTurn(claims: inout ClaimState, queue: ClaimQueue, state: LoopState) async {
        let (settings, logger) = (state.settings, state.logger)
        guard let due = claims.discoveryDue, due <= .now, reservePause(settings: settings) == nil else { return }
        let turn: Bool
        do {
            turn = try queue.with { try $0.takeDiscoveryTurn() }
        } catch {
            claims.trouble("could not ask the queue whose turn it is to list; trying again", error, logger: logger)
            turn = false
        }
        if turn != claims.listsPatterns, queue.leasesRunOut {
            logger.notice(
                turn
                    ? "this daemon lists the patterns' owners for every daemon sharing the store"
                    : "another daemon lists the patterns' owners; this one follows the listings it records")
        }
        claims.listsPatterns = turn
        defer { claims.selectionChanged() }
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

    /// Claims as many due repositories as lanes are free, each synced in a lane of
    /// its own; a due one another process holds is logged as skipped.
    func claimDue(
        claims: inout ClaimState, queue: ClaimQueue, configuration: MirrorConfiguration, state: LoopState,
        lanes: inout DiscardingTaskGroup, yield: @escaping @Sendable (Event) -> Void
    ) {
        let (settings, logger) = (state.settings, state.logger)
        let free = Self.lanes - claims.held
        guard free > 0 else { return }
        let (name, lease) = (settings.name, settings.configuration.leaseDuration)
        let round: ClaimRound
        do {
            round = try queue.with {
                try $0.claimDue(owner: name, limit: free, firstSyncLimit: Self.firstSyncLanes, duration: lease)
            }
        } catch {
            claims.trouble("could not claim from the queue; trying again every second", error, logger: logger)
            return
        }
        if claims.failing { logger.notice("the queue answers again") }
        claims.failing = false
        for (target, holder) in round.busy {
            skipped(target, holder: holder, configuration: configuration, logger: logger, yield: yield)
        }
        for claim in round.claimed {
            claims.held += 1
            metrics.recordLease(.claim)
            if let former = claim.takenOverFrom, former != claim.owner { metrics.recordLease(.takeover) }
            let hasSynced = claims.hasSynced.contains(claim.target.repository.description.lowercased())
            lanes.addTask {
                await work(
                    on: claim, hasSynced: hasSynced, queue: queue, configuration: configuration, settings: settings,
                    logger: logger
                ) { yield(.finished($0)) }
                yield(.claimEnded(claim.target))
            }
        }
    }

    /// A due repository another process is syncing (`commitsctl sync`): not waited for.
    private func skipped(
        _ target: SyncTarget, holder: String, configuration: MirrorConfiguration, logger: Logger,
        yield: @Sendable (Event) -> Void
    ) {
        let key = target.repository.description.lowercased()
        let entry =
            configuration.repositories.first { $0.name.description.lowercased() == key }
            ?? MirrorConfiguration.Repository(name: target.repository)
        logger.notice(
            "skipped: another process is syncing this repository; commitsd tries again next interval",
            metadata: ["repo": "\(target.repository)", "lock.holder": "\(holder)"])
        yield(.finished(Finished(repository: entry, outcome: .skipped(holder: holder), started: .now)))
    }

    /// A push webhook: the repositories it is for are due now for whichever daemon
    /// claims next (`SyncLeases.markPushed`), and `pushedAt` keeps when, for the latency metric.
    private func queuePush(
        _ push: WebhookPush, receivedAt: ContinuousClock.Instant, claims: inout ClaimState, queue: ClaimQueue,
        state: LoopState
    ) {
        let (settings, logger) = (state.settings, state.logger)
        let configuration = claims.selected(from: settings.configuration)
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
            logger.info("push webhook: due now", metadata: metadata)
            metrics.recordPush(.dueNow)
            for key in Set(matched.map { $0.name.description.lowercased() }) {
                claims.pushedAt[key] = min(claims.pushedAt[key] ?? receivedAt, receivedAt)
            }
        } catch {
            logger.warning(
                "push webhook: could not mark the repository due on the queue; its interval will find the push",
                metadata: metadata.merging(["error": "\(error)"]) { $1 })
        }
    }
}
