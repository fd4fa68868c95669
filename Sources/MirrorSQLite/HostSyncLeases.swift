import Foundation
import MirrorCore

/// `SyncLeases` for a store kept in a file (SQLite's), which one host writes:
/// a claim is the repository's `flock` beside the file (`RepositoryLock`, what
/// `commitsctl sync` and `import` take too), and the queue's due times live in
/// this object, in memory, as commitsd's schedule keeps them.
///
/// A `flock` is held until released or until its holder exits; no one can take
/// it over while the holder lives, however long it pauses. So a lease here never
/// runs out, `expiresAt` only reports the duration asked for, and the writer
/// needs no fence of its own: what a fence refuses cannot happen on one host.
/// Branches of one repository share its lock: one of them at a time is claimed.
public final class HostSyncLeases: SyncLeases {
    private let store: StoreLocation
    private var dueAt: [SyncTarget: ContinuousClock.Instant] = [:]
    private var held: [SyncTarget: (lease: SyncLease, lock: RepositoryLock)] = [:]
    private var generations: [SyncTarget: Int64] = [:]
    /// Held targets a push arrived for: due at once when released, whatever their holder asks.
    private var pushedWhileHeld: Set<SyncTarget> = []

    public init(store: StoreLocation) {
        self.store = store
    }

    public var isSharedAcrossHosts: Bool { false }

    /// A `flock` is held until released or until its holder exits.
    public var leasesRunOut: Bool { false }

    public func heldLeases() throws -> [SyncLease] { held.values.map(\.lease) }

    /// Every daemon of one host lists for itself: a listing's ETags make a
    /// second daemon's listing of an unchanged owner 304s.
    public func takeDiscoveryTurn() throws -> Bool { true }

    public func markPushed(_ repositories: [RepositoryName]) throws {
        let keys = Set(repositories.map { $0.description.lowercased() })
        let now = ContinuousClock.now
        for target in dueAt.keys where keys.contains(target.repository.description.lowercased()) {
            if held[target] != nil {
                pushedWhileHeld.insert(target)
            } else {
                dueAt[target] = min(dueAt[target] ?? now, now)
            }
        }
    }

    public func addTargets(_ targets: [SyncTarget]) throws {
        let now = ContinuousClock.now
        for target in targets where dueAt[target] == nil { dueAt[target] = now }
    }

    public func claimDue(owner: String, limit: Int, duration: Duration) throws -> [SyncLease] {
        let now = ContinuousClock.now
        // Ties go by name, as a database's queue orders them.
        let due = dueAt.filter { $0.value <= now && held[$0.key] == nil }
            .map { (target: $0.key, due: $0.value, name: $0.key.repository.description.lowercased(), branch: $0.key.branch ?? "") }
            .sorted { ($0.due, $0.name, $0.branch) < ($1.due, $1.name, $1.branch) }
        var claimed: [SyncLease] = []
        for target in due.map(\.target) where claimed.count < limit {
            let lock: RepositoryLock
            do {
                lock = try RepositoryLock.acquire(store: store, repository: target.repository, holder: owner)
            } catch RepositoryLockError.busy {
                continue  // another process (or another branch of it here) syncs it: skipped, not waited for
            }
            let generation = (generations[target] ?? 0) + 1
            generations[target] = generation
            let lease = SyncLease(target: target, owner: owner, generation: generation, expiresAt: Date() + duration.seconds)
            held[target] = (lease, lock)
            claimed.append(lease)
        }
        return claimed
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
        dueAt[lease.target] = ContinuousClock.now + (pushed ? .zero : nextDue)
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
