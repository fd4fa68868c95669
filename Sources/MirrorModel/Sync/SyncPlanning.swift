import Foundation

/// A target the daemon's queue is to hold: how often it is polled, and
/// whether its history has synced before (a sync of it is then a poll, not a
/// first sync).
public struct SyncTargetPlan: Sendable, Equatable {
    public var target: SyncTarget
    public var policy: PollingPolicy
    public var hasSynced: Bool
    /// What the store tells of the target as the daemon starts, for its first interval (`nil`: nothing yet).
    public var activity: PollActivity?

    /// The policy of a target added without a plan (by hand, or by a tool): the configuration's own default interval.
    public static let unplannedPolicy: PollingPolicy = .fixed(.seconds(15 * 60))

    public init(
        target: SyncTarget, policy: PollingPolicy = unplannedPolicy, hasSynced: Bool = false, activity: PollActivity? = nil
    ) {
        self.target = target
        self.policy = policy
        self.hasSynced = hasSynced
        self.activity = activity
    }

    /// The interval a target that synced before is spread over when first followed:
    /// the one its policy chooses from what the store tells, else its shortest.
    public var firstInterval: Duration {
        activity.map { policy.interval(quietFor: $0.headAge, moved: false) } ?? policy.minimum
    }
}

/// How one sync under a claim ended, as far as the target's next due time is concerned.
public struct SyncResult: Sendable, Equatable {
    public enum Ending: Sendable, Equatable {
        /// A walk stopped after a step: due again at once, behind those already due.
        case stepEnded
        /// Stopped by a shutdown or a lost claim: due at once for whoever claims next.
        case interrupted
        /// The sync completed; what it saw of the branch (`nil`: the store could
        /// not say), and whether the branch moved since the poll before.
        case polled(PollActivity?, moved: Bool)
        /// Tried and failed, or skipped: due again at the policy's shortest interval.
        case attempted
        /// Held back, e.g. until a rate-limit reset.
        case resumesIn(Duration)
    }

    public var policy: PollingPolicy
    public var ending: Ending

    public init(policy: PollingPolicy, ending: Ending) {
        self.policy = policy
        self.ending = ending
    }

    /// The interval a completed or attempted sync asks for, counted on its
    /// target's grid (`nextSlot`); `nil` for one that is due again at a time of its own.
    public var interval: Duration? {
        switch ending {
        case .stepEnded, .interrupted, .resumesIn: nil
        case .polled(let activity?, let moved): policy.interval(quietFor: activity.headAge, moved: moved)
        case .polled(nil, _), .attempted: policy.minimum
        }
    }

    /// When this result makes its target due again, from now, for one not on its grid.
    public var dueIn: Duration {
        switch ending {
        case .resumesIn(let wait): max(.zero, wait)
        default: interval ?? .zero
        }
    }

    /// The interval of a claim whose every sync asks for one: the shortest (a claim
    /// covers every configured branch of a repository); `nil` when one of them is
    /// due at a time of its own, or there are none.
    public static func interval(after results: [SyncResult]) -> Duration? {
        let intervals = results.compactMap(\.interval)
        guard !results.isEmpty, intervals.count == results.count else { return nil }
        return intervals.min()
    }

    /// When a target whose claim produced `results` is due again, from now: the
    /// soonest of them, `nil` for none.
    public static func dueIn(after results: [SyncResult]) -> Duration? {
        results.map(\.dueIn).min()
    }

    /// The first point of the grid `due + k × interval` (k ≥ 1) later than `now`:
    /// a repository's polls stay an interval apart however long each takes, and
    /// a slot a long sync overran is skipped, not made up for.
    public static func nextSlot(
        after due: ContinuousClock.Instant, interval: Duration, now: ContinuousClock.Instant
    ) -> ContinuousClock.Instant {
        guard interval > .zero else { return max(due, now) }
        var next = due + interval
        if next <= now { next = due + interval * (((now - due) / interval).rounded(.down) + 1) }
        while next <= now { next += interval }
        return next
    }
}

/// What one claim round gave: the leases claimed, and the due targets another
/// process holds (`holder` names it), which the queue put off to their next
/// interval rather than hand out again at once.
public struct ClaimRound: Sendable {
    public var claimed: [SyncLease]
    public var busy: [(target: SyncTarget, holder: String)]

    public init(claimed: [SyncLease], busy: [(target: SyncTarget, holder: String)] = []) {
        self.claimed = claimed
        self.busy = busy
    }
}
