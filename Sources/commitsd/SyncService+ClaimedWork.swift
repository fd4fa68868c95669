import Foundation
import Logging
import MirrorCore
import ServiceLifecycle

extension SyncService {
    /// A branch's sync under a claim: what it was, how it ended, when it began.
    typealias ClaimedSync = (repository: MirrorConfiguration.Repository, outcome: Outcome, started: ContinuousClock.Instant)

    /// Syncs the configured branches of a claimed repository, each write fenced
    /// by the claim, renewing a lease that runs out meanwhile; then releases it,
    /// due again when its syncs' results say. A lost claim is logged once and
    /// nothing more is written or released. `finished` hears each branch's outcome.
    func work(
        on claim: SyncLease, hasSynced: Bool, queue: ClaimQueue, configuration: MirrorConfiguration, settings: DaemonSettings,
        logger: Logger, finished: @Sendable (Finished) -> Void
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
            let nextDue = selectable ? Self.followListings : configuration.defaultInterval
            await release(claim, lease: settings.configuration.leaseDuration, queue: queue, logger: logger) {
                try $0.release(claim, nextDue: nextDue)
            }
            return
        }
        let held = HeldLease(claim)
        let lease = settings.configuration.leaseDuration
        let results = await withTaskGroup(of: [ClaimedSync]?.self) { group in
            if queue.leasesRunOut {
                group.addTask {
                    await renew(held, queue: queue, duration: lease, logger: logger)
                    return nil
                }
            }
            group.addTask {
                await syncBranches(
                    of: claim, named: named, globs: globs, hasSynced: hasSynced, queue: queue, settings: settings,
                    logger: logger)
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
        // One reader for the claim's syncs, opened only when one of them completed.
        let reader =
            results.contains { if case .synced = $0.outcome { true } else { false } }
            ? openReader(settings: settings, logger: logger) : nil
        let syncResults = results.map {
            syncResult(of: $0, hasSynced: hasSynced, reader: reader, configuration: configuration)
        }
        await release(held.lease, lease: lease, queue: queue, logger: logger) {
            try $0.release(held.lease, after: syncResults, otherwise: configuration.defaultInterval)
        }
    }

    /// The claimed repository's branches synced one after the other (its globs' listed
    /// under the claim), until one of them does not end in a way that lets the next go on.
    private func syncBranches(
        of claim: SyncLease, named: [MirrorConfiguration.Repository], globs: MirrorConfiguration.BranchGlobs?,
        hasSynced: Bool, queue: ClaimQueue, settings: DaemonSettings, logger: Logger
    ) async -> [ClaimedSync] {
        var results: [ClaimedSync] = []
        var (branches, listing) = (named, BranchListing?.none)
        if let globs {
            (branches, listing) = await claimedBranches(
                globs, named: named, claim: claim, queue: queue, settings: settings, logger: logger)
        }
        // A first sync reads every branch the listing names over git in one fetch.
        var newBranches = hasSynced ? nil : listing?.heads.filter { head in branches.contains { $0.branch == head.key } }
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
                openWriter: { try queue.with { try $0.openFencedWriter(for: claim) } }, newBranches: newBranches,
                listedHead: listedHead)
            newBranches = nil
            results.append((repository, outcome, started))
            switch outcome {
            case .synced, .failed, .removed: continue
            default: return results
            }
        }
        return results
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
    private func release(
        _ claim: SyncLease, lease: Duration, queue: ClaimQueue, logger: Logger, _ release: (any SyncLeases) throws -> Void
    ) async {
        let giveUp = ContinuousClock.now + lease
        var warned = false
        while true {
            do {
                try queue.with(release)
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

    /// What a branch's sync tells the queue of when its repository is due again:
    /// at once after a step of a walk or a shutdown (any daemon resumes it), at
    /// the reset after a rate limit, else on the interval its policy chooses from
    /// what the sync saw. A sync that stored new commits of a repository synced
    /// before found it moved.
    private func syncResult(
        of sync: ClaimedSync, hasSynced: Bool, reader: (any MirrorReading)?, configuration: MirrorConfiguration
    ) -> SyncResult {
        let policy = configuration.pollingPolicy(for: sync.repository)
        switch sync.outcome {
        case .stepEnded: return SyncResult(policy: policy, ending: .stepEnded)
        case .interrupted, .leaseLost: return SyncResult(policy: policy, ending: .interrupted)
        case .rateLimited(let resume), .reserveHeld(let resume): return SyncResult(policy: policy, ending: .resumesIn(resume - .now))
        case .failed, .skipped, .removed: return SyncResult(policy: policy, ending: .attempted)
        case .synced(let report):
            let seen = reader.flatMap { self.activity(after: report, reader: $0) }
            let moved = hasSynced && report.added + report.leftBranch + report.returned > 0
            return SyncResult(policy: policy, ending: .polled(seen, moved: moved))
        }
    }
}
