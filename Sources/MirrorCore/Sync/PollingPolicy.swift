import Foundation

/// How often one repository is polled: a fixed interval, or one that adapts to
/// the repository's activity between a minimum and a maximum.
///
/// The adaptive rule is Sourcegraph's mirror's: poll again after half the time
/// since the branch's newest commit, within the range. A repository committed
/// to an hour ago is polled every 30 minutes, one dormant for a year at the
/// maximum; one whose branch just moved is polled at the minimum next, since
/// pushes come in bursts.
public enum PollingPolicy: Sendable, Equatable {
    case fixed(Duration)
    case adaptive(minimum: Duration, maximum: Duration)

    /// The interval until the next poll, given what the last poll saw; `nil`
    /// (nothing seen yet) polls at the minimum until something is known.
    public func interval(after activity: PollActivity?) -> Duration {
        switch self {
        case .fixed(let interval):
            return interval
        case .adaptive(let minimum, let maximum):
            guard let activity else { return minimum }
            if activity.moved { return minimum }
            // No commit to date (an empty repository): nothing suggests it will move soon.
            guard let age = activity.newestCommitAge else { return maximum }
            return min(max(age / 2, minimum), maximum)
        }
    }

    /// The shortest interval the policy can choose.
    public var minimum: Duration {
        switch self {
        case .fixed(let interval): interval
        case .adaptive(let minimum, _): minimum
        }
    }
}

/// What a poll saw of a repository's activity.
public struct PollActivity: Sendable, Equatable {
    /// How long ago the branch head was committed; `nil` when the branch has no
    /// commit (an empty repository). A date in the future counts as now.
    public var newestCommitAge: Duration?
    /// Whether this poll found the branch moved (new commits or another head).
    public var moved: Bool

    public init(newestCommitAge: Duration?, moved: Bool) {
        self.newestCommitAge = newestCommitAge.map { Swift.max($0, .zero) }
        self.moved = moved
    }

    /// From the head's committer date as stored (`nil`: no commit), as of `now`.
    public init(newestCommitAt: Date?, moved: Bool, now: Date) {
        self.init(newestCommitAge: newestCommitAt.map { .seconds(now.timeIntervalSince($0)) }, moved: moved)
    }
}
