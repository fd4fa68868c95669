import Foundation

/// One thing a daemon syncs: a repository and one of its branches (`nil`: the
/// repository's default branch, whatever it is called now).
public struct SyncTarget: Sendable, Hashable, CustomStringConvertible {
    public let repository: RepositoryName
    public let branch: String?

    public init(repository: RepositoryName, branch: String? = nil) {
        self.repository = repository
        self.branch = branch
    }

    public var description: String {
        branch.map { "\(repository) (branch \($0))" } ?? "\(repository) (default branch)"
    }
}

/// A claim on a target, held by `owner` until `expiresAt` unless renewed.
///
/// `generation` grows by one at every claim of the target, by whichever owner:
/// it is the fencing token. A holder whose lease ran out and was claimed by
/// another has a smaller generation than the row, so its renewals and its writes
/// are refused (`StoreError.leaseLost`) however late it wakes up.
public struct SyncLease: Sendable, Hashable, CustomStringConvertible {
    public let target: SyncTarget
    public let owner: String
    public let generation: Int64
    /// By the store's clock (a database server's `now()`), never the holder's.
    public let expiresAt: Date
    /// Set by a claim that took the target over: the owner whose lease ran out
    /// without being released (a daemon that died or stalled), `nil` otherwise.
    public let takenOverFrom: String?

    public init(target: SyncTarget, owner: String, generation: Int64, expiresAt: Date, takenOverFrom: String? = nil) {
        self.target = target
        self.owner = owner
        self.generation = generation
        self.expiresAt = expiresAt
        self.takenOverFrom = takenOverFrom
    }

    public var description: String { "\(target) held by \(owner), lease generation \(generation)" }
}

/// The claims on sync targets of every process sharing a store: a queue of
/// targets by due time, each claimed by one owner at a time under a lease.
///
/// On a PostgreSQL store the queue and the leases are rows of the database,
/// shared by every daemon on any machine, and the leases' clock is the server's
/// (MirrorPostgreSQL/PostgreSQLSyncLeases.swift). On a SQLite store, which one
/// host writes, a claim is the repository's `flock` beside the file and the due
/// times live in this object (MirrorSQLite/HostSyncLeases.swift): one host's
/// behaviour behind the same calls.
///
/// Used by one task at a time, like a store's connection.
public protocol SyncLeases: AnyObject {
    /// Whether a lease its holder stops renewing runs out, by the store's clock,
    /// so another claimer takes the target over (a database's rows). `false`: a
    /// claim is held until released or until its holder exits (a `flock`).
    var leasesRunOut: Bool { get }
    /// Adds the planned targets not yet in the queue, due now (one that synced
    /// before may be spread over its interval instead); known ones keep their due
    /// time and lease, and take the plan's policy.
    func follow(_ plans: [SyncTargetPlan]) throws
    /// Claims at most `limit` targets that are due and not held under a live
    /// lease, the longest due first, each for `duration` from now; of them at
    /// most `firstSyncLimit` whose history has not synced, where the queue knows
    /// it. Two callers never get the same target; none is waited for: one another
    /// process holds is skipped, or returned as `busy` and put off.
    func claimDue(owner: String, limit: Int, firstSyncLimit: Int, duration: Duration) throws -> ClaimRound
    /// Extends the lease to `duration` from now, only while its generation still
    /// holds the target; otherwise throws `StoreError.leaseLost`.
    func renew(_ lease: SyncLease, duration: Duration) throws -> SyncLease
    /// Gives the target up, due again `nextDue` from now, only while the lease's
    /// generation still holds it; otherwise throws `StoreError.leaseLost`.
    func release(_ lease: SyncLease, nextDue: Duration) throws
    /// Gives the target up, due again when the results of its claim's syncs say:
    /// on its grid (`SyncResult.nextSlot`, from the due time it was claimed at)
    /// when each asks for an interval, else when the soonest asks, `otherwise`
    /// when there are none; as `release(_:nextDue:)`, a push while held makes it due now.
    func release(_ lease: SyncLease, after results: [SyncResult], otherwise: Duration) throws
    /// A writer whose every write transaction first checks, inside it, that
    /// `lease` still holds its target unexpired, and otherwise fails with
    /// `StoreError.leaseLost` having written nothing.
    func openFencedWriter(for lease: SyncLease) throws -> any MirrorWriter
    /// A push webhook arrived for these repositories: each is due now, and one
    /// held by a claim is due again as soon as its holder releases it (its sync
    /// may have read the head before the push). Repositories not queued are ignored.
    func markPushed(_ repositories: [RepositoryName]) throws
    /// Whether this caller is the one that lists the configuration's `OWNER/*`
    /// patterns: `true` for one caller at a time among all sharing the queue,
    /// which keeps the turn until it releases this object (or its process ends);
    /// the others follow the listings it records in the store. Asked again, it
    /// answers the same without waiting.
    func takeDiscoveryTurn() throws -> Bool
    /// How long until a claim may find a target due, at most `limit`: a queue
    /// other processes change is asked again after `limit`.
    func nextClaimable(within limit: Duration) -> Duration
    /// The claims not released, live or run out (by the store's clock, which
    /// `expiresAt` is), for `commitsctl status`; those of this object only on one host.
    func heldLeases() throws -> [SyncLease]
}

extension SyncLeases {
    /// Adds `targets` with the default plan (tests and tools that claim by hand).
    public func addTargets(_ targets: [SyncTarget]) throws {
        try follow(targets.map { SyncTargetPlan(target: $0) })
    }

    /// Claims as `claimDue(owner:limit:firstSyncLimit:duration:)` with no separate limit on first syncs.
    public func claimDue(owner: String, limit: Int, duration: Duration) throws -> [SyncLease] {
        try claimDue(owner: owner, limit: limit, firstSyncLimit: limit, duration: duration).claimed
    }
}

extension Duration {
    /// Whole milliseconds (what the stores keep), at least 0.
    public var leaseMilliseconds: Int64 {
        let (seconds, attoseconds) = components
        return max(0, seconds * 1_000 + attoseconds / 1_000_000_000_000_000)
    }
}
