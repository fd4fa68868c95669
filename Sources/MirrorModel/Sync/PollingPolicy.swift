import Foundation

/// How often one repository is polled: a fixed interval, or one that adapts to
/// the repository's activity between a minimum and a maximum.
///
/// The adaptive rule is Sourcegraph's mirror's: poll again after half the time
/// since the repository last moved, within the range. A repository committed to
/// an hour ago is polled every 30 minutes, one dormant for a year at the
/// maximum; one whose branch just moved is polled at the minimum next, since
/// pushes come in bursts, and then less and less often while it stays still.
public enum PollingPolicy: Sendable, Equatable {
    case fixed(Duration)
    case adaptive(minimum: Duration, maximum: Duration)

    /// The interval until the next poll. `quietFor`: how long the repository
    /// has been still (`nil`: it has no commit, an empty repository); `moved`:
    /// the poll just found its branch moved.
    public func interval(quietFor: Duration?, moved: Bool) -> Duration {
        switch self {
        case .fixed(let interval):
            return interval
        case .adaptive(let minimum, let maximum):
            if moved { return minimum }
            // No commit to date: nothing suggests it will move soon.
            guard let quietFor else { return maximum }
            return min(max(quietFor / 2, minimum), maximum)
        }
    }

    /// The shortest interval the policy can choose (used until a poll has seen the repository).
    public var minimum: Duration {
        switch self {
        case .fixed(let interval): interval
        case .adaptive(let minimum, _): minimum
        }
    }
}

/// What a poll saw of a repository: its branch head and how old that head's
/// commit is. Whether it moved is the schedule's to tell, from the head the
/// poll before saw.
public struct PollActivity: Sendable, Equatable {
    /// `nil`: the branch has no commit (an empty repository).
    public var head: String?
    /// How long ago the head was committed (its committer date); `nil` when
    /// unknown. A date in the future counts as now.
    public var headAge: Duration?

    public init(head: String?, headAge: Duration?) {
        self.head = head
        self.headAge = headAge.map { Swift.max($0, .zero) }
    }

    /// From the head's committer date as stored, as of `now`.
    public init(head: String?, committedAt: Date?, now: Date) {
        self.init(head: head, headAge: committedAt.map { .seconds(now.timeIntervalSince($0)) })
    }
}
