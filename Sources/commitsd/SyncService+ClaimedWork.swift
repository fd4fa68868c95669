import Foundation
import Logging
import MirrorCore
import ServiceLifecycle

extension SyncService {
    /// A branch's sync under a claim: what it was, how it ended, when it began.
    typealias ClaimedSync = (repository: MirrorConfiguration.Repository, outcome: Outcome, started: ContinuousClock.Instant)

    /// Syncs the configured branches of a claimed repository, each write fenced
    /// by the claim, renewing its lease meanwhile; then releases it, due again
    /// when `nextDue` says. A lost claim is logged once and nothing more is
    /// written or released. `finished` hears each branch's outcome.
    func work(
        on claim: SyncLease, queue: ClaimQueue, configuration: MirrorConfiguration, settings: DaemonSettings, logger: Logger,
        finished: @Sendable (Finished) -> Void
    ) async {
        var claimLogger = logger
        claimLogger[metadataKey: "repo"] = "\(claim.target.repository)"
        claimLogger[metadataKey: "lease.generation"] = "\(claim.generation)"
        let logger = claimLogger
        if let former = claim.takenOverFrom {
            logger.notice("took over a claim whose lease ran out unreleased", metadata: ["lease.former_owner": "\(former)"])
        }
        let key = claim.target.repository.description.lowercased()
        let named = configuration.repositories.filter { $0.name.description.lowercased() == key }
        let globs = configuration.branchGlobs.first { $0.key == key }
        guard !named.isEmpty || globs != nil else {
            // Listed by another daemon's configuration (or by none any more): given back untouched.
            // One of this daemon's patterns may select it in a listing the lister recorded after
            // this daemon last read them: then it is due again once this daemon has read them again.
            let selectable = configuration.patterns.contains { $0.pattern.matches(claim.target.repository) }
            logger.debug("claimed a repository this daemon's configuration does not list; giving it back")
            await release(
                claim, nextDue: selectable ? Self.followListings : configuration.defaultInterval,
                lease: settings.configuration.leaseDuration, queue: queue, logger: logger)
            return
        }
        let held = HeldLease(claim)
        let lease = settings.configuration.leaseDuration
        let results = await withTaskGroup(of: [ClaimedSync]?.self) { group in
            group.addTask {
                await renew(held, queue: queue, duration: lease, logger: logger)
                return nil
            }
            group.addTask {
                var results: [ClaimedSync] = []
                var (branches, listing) = (named, BranchListing?.none)
                if let globs {
                    (branches, listing) = await claimedBranches(
                        globs, named: named, claim: claim, queue: queue, settings: settings, logger: logger)
                }
                defer {
                    // Kept for the next claim, by whichever daemon holds it.
                    if let listing, let globs {
                        _ = try? listing.keep(for: globs.name, in: queue.with { try $0.openFencedWriter(for: claim) })
                    }
                }
                for repository in branches {
                    let started = ContinuousClock.now
                    let listedHead = repository.branch.flatMap { listing?.heads[$0] }
                    let outcome = await sync(
                        repository, settings: settings, logger: logger,
                        openWriter: { try queue.with { try $0.openFencedWriter(for: claim) } }, listedHead: listedHead)
                    results.append((repository, outcome, started))
                    switch outcome {
                    case .synced, .failed, .removed: continue
                    default: return results
                    }
                }
                return results
            }
            // Whichever ends first (the syncs, or the renewals on a lost lease) ends the other.
            var results: [ClaimedSync] = []
            while let next = await group.next() {
                if let next { results = next }
                group.cancelAll()
            }
            return results
        }
        if held.isLost || results.contains(where: { if case .leaseLost = $0.outcome { true } else { false } }) {
            lost(claim, logger: logger)
            return
        }
        for result in results {
            finished(Finished(repository: result.repository, outcome: result.outcome, started: result.started))
        }
        await release(
            held.lease, nextDue: nextDue(after: results, configuration: configuration), lease: lease, queue: queue, logger: logger)
    }

    /// Renews `held` every third of `duration` until cancelled or refused (then marked lost).
    private func renew(_ held: HeldLease, queue: ClaimQueue, duration: Duration, logger: Logger) async {
        while true {
            do {
                try await Task.sleep(for: duration / 3)
            } catch {
                return
            }
            do {
                held.renewed(try queue.with { try $0.renew(held.lease, duration: duration) })
                metrics.recordLease(.renewal)
            } catch let error as StoreError where error.isLeaseLost {
                held.markLost()
                return
            } catch {
                // Writes stay fenced by the lease, so failing to renew can only cost the claim.
                logger.warning("could not renew the claim; trying again", metadata: ["error": "\(error)"])
            }
        }
    }

    /// Gives the claim back. A database that does not answer (restarting) is
    /// asked again every second until the lease would have run out anyway, except
    /// at a shutdown: the claim is then claimable again once its lease runs out.
    private func release(_ claim: SyncLease, nextDue: Duration, lease: Duration, queue: ClaimQueue, logger: Logger) async {
        let giveUp = ContinuousClock.now + lease
        var warned = false
        while true {
            do {
                try queue.with { try $0.release(claim, nextDue: nextDue) }
                return
            } catch let error as StoreError where error.isLeaseLost {
                lost(claim, logger: logger)
                return
            } catch {
                if !warned {
                    logger.warning(
                        "could not release the claim; trying again until its lease would run out",
                        metadata: ["error": "\(error)"])
                }
                warned = true
                guard !Task.isShuttingDownGracefully, ContinuousClock.now + .seconds(1) < giveUp else { return }
                try? await Task.sleep(for: .seconds(1))
            }
        }
    }

    /// The one line a lost claim gets.
    private func lost(_ claim: SyncLease, logger: Logger) {
        metrics.recordLease(.lost)
        logger.error(
            "claim lost: its lease ran out and another daemon may have claimed the repository; this sync is dropped, nothing more is written under it",
            metadata: ["lease.owner": "\(claim.owner)"])
    }

    /// When a released repository is due again: at once after a step of a walk
    /// or a shutdown (any daemon resumes it), at the reset after a rate limit,
    /// else on the interval its policy chooses.
    private func nextDue(after results: [ClaimedSync], configuration: MirrorConfiguration) -> Duration {
        var due: Duration?
        for result in results {
            let policy = configuration.pollingPolicy(for: result.repository)
            let next: Duration
            switch result.outcome {
            case .stepEnded, .interrupted, .leaseLost: next = .zero
            case .rateLimited(let resume), .reserveHeld(let resume): next = max(.zero, resume - .now)
            case .synced(let report):
                let activity = openReader(settings: initial, logger: Logger(label: "commitsd"))
                    .flatMap { self.activity(after: report, reader: $0) }
                next = policy.interval(quietFor: activity?.headAge, moved: false)
            case .failed, .skipped, .removed: next = policy.minimum
            }
            due = min(due ?? next, next)
        }
        return due ?? configuration.defaultInterval
    }
}
