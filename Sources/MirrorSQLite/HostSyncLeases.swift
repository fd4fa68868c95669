import Foundation
import MirrorCore

/// `SyncLeases` for a store kept in a file (SQLite's), which one host writes:
/// a claim is the repository's `flock` beside the file (`RepositoryLock`, what
/// `commitsctl sync` and `import` take too), and the queue's due times live in
/// this object, in memory, for the one daemon that writes the store.
///
/// A `flock` is held until released or until its holder exits; no one can take
/// it over while the holder lives, however long it pauses. So a lease here never
/// runs out, `expiresAt` only reports the duration asked for, and the writer
/// needs no fence of its own: what a fence refuses cannot happen on one host.
///
/// - Targets that synced before are spread over their first interval when
///   first followed, so a restart's polls do not come in one burst.
/// - A due target another process holds (`commitsctl sync`) is returned as busy
///   and put off to its shortest interval, never handed out again at once.
/// - Of the claims held, at most `firstSyncLimit` are first syncs, so a lane
///   stays free for the polls of repositories synced before.
public final class HostSyncLeases: SyncLeases {
    private struct Entry {
        var plan: SyncTargetPlan
        var due: ContinuousClock.Instant
        /// Among targets due at once, the lowest goes first: the order they were first followed in,
        /// which is the configuration's (its first repositories are its first syncs).
        let order: Int
    }

    private let store: StoreLocation
    private var entries: [SyncTarget: Entry] = [:]
    private var held: [SyncTarget: (lease: SyncLease, lock: RepositoryLock)] = [:]
    private var generations: [SyncTarget: Int64] = [:]
    /// Held targets a push arrived for: due at once when released, whatever their holder asks.
    private var pushedWhileHeld: Set<SyncTarget> = []
    /// The first-sync limit of the last claim round, for `nextClaimable` to leave out what it keeps waiting.
    private var firstSyncLimit = Int.max

    public init(store: StoreLocation) {
        self.store = store
    }

    /// A `flock` is held until released or until its holder exits.
    public var leasesRunOut: Bool { false }

    public func heldLeases() throws -> [SyncLease] { held.values.map(\.lease) }

    /// Every daemon of one host lists for itself: a listing's ETags make a
    /// second daemon's listing of an unchanged owner 304s.
    public func takeDiscoveryTurn() throws -> Bool { true }

    public func markPushed(_ repositories: [RepositoryName]) throws {
        let keys = Set(repositories.map { $0.description.lowercased() })
        let now = ContinuousClock.now
        for target in entries.keys where keys.contains(target.repository.description.lowercased()) {
            if held[target] != nil {
                pushedWhileHeld.insert(target)
            } else if let due = entries[target]?.due {
                entries[target]?.due = min(due, now)
            }
        }
    }

    public func follow(_ plans: [SyncTargetPlan]) throws {
        let now = ContinuousClock.now
        let count = max(plans.count, 1)
        for (index, plan) in plans.enumerated() {
            if var entry = entries[plan.target] {
                entry.plan.policy = plan.policy
                entry.plan.hasSynced = entry.plan.hasSynced || plan.hasSynced
                entries[plan.target] = entry
            } else {
                let spread = plan.hasSynced ? plan.firstInterval * (Double(index) / Double(count)) : .zero
                entries[plan.target] = Entry(plan: plan, due: now + spread, order: entries.count)
            }
        }
    }

    public func claimDue(owner: String, limit: Int, firstSyncLimit: Int, duration: Duration) throws -> ClaimRound {
        self.firstSyncLimit = firstSyncLimit
        let now = ContinuousClock.now
        var firstSyncs = firstSyncsHeld
        var round = ClaimRound(claimed: [])
        var failure: (any Error)?
        var tried: Set<SyncTarget> = []
        while round.claimed.count < limit,
            let target = nextDue(at: now, firstSyncsMayStart: firstSyncs < firstSyncLimit, excluding: tried)
        {
            tried.insert(target)
            guard let entry = entries[target] else { continue }
            let lock: RepositoryLock
            do {
                // The lock file names the process (`commitsd`), which another process's busy message shows.
                lock = try RepositoryLock.acquire(store: store, repository: target.repository)
            } catch RepositoryLockError.busy(_, let holder) {
                // Another process syncs it: skipped until its next interval, not waited for.
                entries[target]?.due = now + entry.plan.policy.minimum
                round.busy.append((target, holder ?? "holder unknown"))
                continue
            } catch {
                // A lock file that cannot be used is tried again at the next interval, not at every claim.
                entries[target]?.due = now + entry.plan.policy.minimum
                failure = failure ?? error
                continue
            }
            if !entry.plan.hasSynced { firstSyncs += 1 }
            let generation = (generations[target] ?? 0) + 1
            generations[target] = generation
            let lease = SyncLease(target: target, owner: owner, generation: generation, expiresAt: Date() + duration.seconds)
            held[target] = (lease, lock)
            round.claimed.append(lease)
        }
        if let failure, round.claimed.isEmpty, round.busy.isEmpty { throw failure }
        return round
    }

    /// The target due longest at `now` that a claim may take: not held, its repository not held
    /// by another of this object's claims (branches of one repository share its lock), not a first
    /// sync unless one may start, not in `excluding`. One pass: a daemon asks after every sync, of
    /// thousands of targets, and takes one or two of them.
    private func nextDue(at now: ContinuousClock.Instant, firstSyncsMayStart: Bool, excluding: Set<SyncTarget>) -> SyncTarget? {
        let heldRepositories = heldRepositories
        var best: (target: SyncTarget, entry: Entry)?
        for (target, entry) in entries where entry.due <= now {
            if let best, (best.entry.due, best.entry.order) < (entry.due, entry.order) { continue }
            guard held[target] == nil, firstSyncsMayStart || entry.plan.hasSynced, !excluding.contains(target),
                !heldRepositories.contains(target.repository.description.lowercased())
            else { continue }
            best = (target, entry)
        }
        return best?.target
    }

    /// How many of the claims held are first syncs.
    private var firstSyncsHeld: Int { held.keys.count { entries[$0]?.plan.hasSynced == false } }

    /// The repositories (lowercased names) this object's claims hold: branches of one repository share its lock.
    private var heldRepositories: Set<String> { Set(held.keys.map { $0.repository.description.lowercased() }) }

    public func nextClaimable(within limit: Duration) -> Duration {
        let now = ContinuousClock.now
        let (firstSyncsHeld, heldRepositories) = (firstSyncsHeld, heldRepositories)
        var soonest = limit
        for (target, entry) in entries {
            let wait = max(.zero, entry.due - now)
            guard wait < soonest, entry.plan.hasSynced || firstSyncsHeld < firstSyncLimit,
                !heldRepositories.contains(target.repository.description.lowercased())
            else { continue }
            soonest = wait
        }
        return soonest
    }

    public func renew(_ lease: SyncLease, duration: Duration) throws -> SyncLease {
        let current = try holding(lease)
        let renewed = SyncLease(
            target: lease.target, owner: lease.owner, generation: lease.generation, expiresAt: Date() + duration.seconds)
        held[lease.target] = (renewed, current.lock)
        return renewed
    }

    public func release(_ lease: SyncLease, nextDue: Duration) throws {
        let current = try holding(lease)
        current.lock.release()
        held[lease.target] = nil
        let pushed = pushedWhileHeld.remove(lease.target) != nil
        let due = ContinuousClock.now + (pushed ? .zero : nextDue)
        if entries[lease.target] == nil {
            entries[lease.target] = Entry(plan: SyncTargetPlan(target: lease.target), due: due, order: entries.count)
        } else {
            entries[lease.target]?.due = due
        }
    }

    /// Also notes that a target whose sync completed has synced: its next syncs are polls.
    public func release(_ lease: SyncLease, after results: [SyncResult], otherwise: Duration) throws {
        let now = ContinuousClock.now
        let claimedDue = entries[lease.target]?.due ?? now
        if let interval = SyncResult.interval(after: results) {
            try release(lease, nextDue: SyncResult.nextSlot(after: claimedDue, interval: interval, now: now) - now)
        } else {
            try release(lease, nextDue: SyncResult.dueIn(after: results) ?? otherwise)
        }
        if results.contains(where: { if case .polled = $0.ending { true } else { false } }) {
            entries[lease.target]?.plan.hasSynced = true
        }
    }

    public func openFencedWriter(for lease: SyncLease) throws -> any MirrorWriter {
        _ = try holding(lease)
        return try store.openSyncWriter()
    }

    private func holding(_ lease: SyncLease) throws -> (lease: SyncLease, lock: RepositoryLock) {
        guard let current = held[lease.target], current.lease.generation == lease.generation,
            current.lease.owner == lease.owner
        else { throw StoreError.leaseLost(lease) }
        return current
    }
}

@available(*, unavailable)
extension HostSyncLeases: Sendable {}

extension Duration {
    /// The duration in seconds, for `Date` arithmetic.
    var seconds: TimeInterval { Double(leaseMilliseconds) / 1_000 }
}
