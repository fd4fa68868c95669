/// When each configured repository is synced next (the service's plan).
///
/// - Each repository polls on its own grid: `anchor + k × interval`. The
///   `i`-th of `n` repositories is anchored `interval × i / n` after start, so
///   polls are spread over the interval instead of coming in bursts, and the
///   spread survives syncs of any length (missed slots are skipped).
/// - Repositories that have never synced successfully go first, at once.
/// - A repository's interval follows its `PollingPolicy`: after each poll the
///   interval is chosen from what the poll saw, and the next due time is the
///   next point of the grid of that interval (a repository that just moved is
///   due within its minimum, however long it waited before).
/// - A sync stopped after a step of its walk is `requeued`: due at once, but
///   behind every repository already due, so a long first sync runs in the
///   gaps between the others' polls.
/// - `pause(until:)` holds everything back, e.g. until a rate-limit reset.
/// - `nudge` (a push webhook) makes a repository due now; one whose sync is
///   under way is due again as soon as that sync ends (it may have read the
///   branch before the push). Its grid is kept: the polls go on as planned.
/// - A repository whose sync has `started` is not handed out again until it
///   is `completed` or `requeued`, so syncs may run side by side.
///
/// A daemon mirrors thousands of repositories and asks for the next job after
/// every sync, so the plan keeps each job's key (`Repository.key`, built
/// once) and its position by key: `next` is one pass that copies nothing and
/// asks `eligible` only of a job that would be the answer, and the others
/// find their job at once, where filtering copies of every job and building
/// their keys made each idle poll of a large daemon cost several times as much
/// CPU (docs/MEASURED-REASONS.md, "Measured reasons: the daemon's schedule").
public struct SyncSchedule: Sendable {
    public struct Job: Sendable, Equatable {
        public var repository: MirrorConfiguration.Repository {
            didSet { (key, repositoryKey) = (repository.key, Self.repositoryKey(ofKey: repository.key)) }
        }
        /// `repository.key` (`owner/name@branch`, lowercased name), built once.
        public private(set) var key: String
        /// The repository's part of `key` (`owner/name`), which its branches share.
        public private(set) var repositoryKey: String

        /// The repository's part of a job's `key`: a repository's name holds no `@`, a branch's may.
        public static func repositoryKey(ofKey key: String) -> String {
            String(key.prefix { $0 != "@" })
        }
        public var policy: PollingPolicy
        /// What the last poll saw (`nil`: nothing yet).
        public var activity: PollActivity?
        /// When a poll last found the branch moved (unknown before this process saw it).
        public var movedAt: ContinuousClock.Instant?
        /// The interval the policy chose from `activity`.
        public var interval: Duration
        /// A point of the job's grid.
        public var anchor: ContinuousClock.Instant
        public var due: ContinuousClock.Instant
        /// Among jobs due at once, the lowest goes first: the configured order,
        /// after which `requeue` puts a job.
        var order: Int

        init(
            repository: MirrorConfiguration.Repository, policy: PollingPolicy, activity: PollActivity?, interval: Duration,
            anchor: ContinuousClock.Instant, due: ContinuousClock.Instant, order: Int
        ) {
            self.repository = repository
            self.key = repository.key
            self.repositoryKey = Self.repositoryKey(ofKey: key)
            self.policy = policy
            self.activity = activity
            self.interval = interval
            self.anchor = anchor
            self.due = due
            self.order = order
        }

        /// How long the repository has been still: since its head's commit or
        /// its last move seen, whichever is later (commit dates can be old when pushed).
        func quietFor(now: ContinuousClock.Instant) -> Duration? {
            guard let movedAt else { return activity?.headAge }
            return min(activity?.headAge ?? (now - movedAt), now - movedAt)
        }
    }

    /// In the configured order.
    public private(set) var jobs: [Job] = []
    /// Each job's index in `jobs`, by key (`jobs` is only ever replaced whole, by `init` and `apply`).
    private var positions: [String: Int] = [:]
    /// The `order` the next requeued job takes.
    private var nextOrder = 0
    private var pausedUntil: ContinuousClock.Instant?
    /// Keys of the repositories whose sync is under way.
    public private(set) var running: Set<String> = []
    /// Keys of running repositories nudged since their sync started.
    private var nudgedWhileRunning: Set<String> = []

    /// `synced` holds the keys (`Repository.key`) of repositories that have
    /// synced before; `activity`, by the same keys, what the store tells of them.
    public init(
        configuration: MirrorConfiguration, synced: Set<String>, activity: [String: PollActivity] = [:],
        now: ContinuousClock.Instant
    ) {
        let count = configuration.repositories.count
        jobs = configuration.repositories.enumerated().map { index, repository in
            let policy = configuration.pollingPolicy(for: repository)
            let key = repository.key
            let seen = activity[key]
            let interval = seen.map { policy.interval(quietFor: $0.headAge, moved: false) } ?? policy.minimum
            let anchor = now + interval * (Double(index) / Double(max(count, 1)))
            let due = synced.contains(key) ? anchor : now
            return Job(
                repository: repository, policy: policy, activity: seen, interval: interval, anchor: anchor, due: due, order: index)
        }
        nextOrder = count
        positions = Self.positions(of: jobs)
    }

    private static func positions(of jobs: [Job]) -> [String: Int] {
        Dictionary(jobs.indices.map { (jobs[$0].key, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// The job due soonest (the earliest configured one among equals) of those not running.
    public var next: Job? { next(where: { _ in true }) }

    /// The job due soonest (the lowest `order` among equals) of those not running that `eligible` accepts.
    public func next(where eligible: (Job) -> Bool) -> Job? {
        var best: Int?
        for index in jobs.indices {
            if let best, (jobs[best].due, jobs[best].order) < (jobs[index].due, jobs[index].order) { continue }
            guard !running.contains(jobs[index].key), eligible(jobs[index]) else { continue }
            best = index
        }
        guard let best else { return nil }
        var job = jobs[best]
        if let pausedUntil, job.due < pausedUntil { job.due = pausedUntil }
        return job
    }

    /// `repository`'s sync began: it is not `next` until it ends (`completed` or `requeue`).
    public mutating func started(_ repository: MirrorConfiguration.Repository) {
        running.insert(repository.key)
    }

    /// Marks `repository` as just synced (or attempted): due at its next grid
    /// point after `now`, on the interval its policy chooses from `activity`
    /// (`nil`, e.g. after a failure: the interval stays).
    ///
    /// A head other than the one the last poll saw is a move (a first sync is not).
    public mutating func completed(
        _ repository: MirrorConfiguration.Repository, now: ContinuousClock.Instant, activity: PollActivity? = nil
    ) {
        let key = repository.key
        running.remove(key)
        guard let index = positions[key] else { return }
        defer { if nudgedWhileRunning.remove(key) != nil { jobs[index].due = now } }
        if let activity {
            var job = jobs[index]
            let moved = job.activity.map { $0.head != activity.head } ?? false
            if moved { job.movedAt = now }
            job.activity = activity
            let interval = job.policy.interval(quietFor: job.quietFor(now: now), moved: moved)
            // A spread slot still ahead was planned for the old interval: the new one counts from now.
            if interval != job.interval && job.anchor > now { job.anchor = now }
            job.interval = interval
            jobs[index] = job
        }
        jobs[index].due = Self.slot(after: now, anchor: jobs[index].anchor, interval: jobs[index].interval)
    }

    /// A push webhook: `repository` is due at `now` (ahead of its grid), or,
    /// when its sync is under way, again as soon as that sync ends.
    public mutating func nudge(_ repository: MirrorConfiguration.Repository, now: ContinuousClock.Instant) {
        let key = repository.key
        guard let index = positions[key] else { return }
        if running.contains(key) {
            nudgedWhileRunning.insert(key)
        } else {
            jobs[index].due = min(jobs[index].due, now)
        }
    }

    /// Puts a repository whose sync stopped after a step back in the queue: due
    /// at `now`, after every repository due before.
    public mutating func requeue(_ repository: MirrorConfiguration.Repository, now: ContinuousClock.Instant) {
        let key = repository.key
        running.remove(key)
        nudgedWhileRunning.remove(key)
        guard let index = positions[key] else { return }
        jobs[index].due = now
        // Among equal due times the lowest order goes first: it takes the highest.
        jobs[index].order = nextOrder
        nextOrder += 1
    }

    /// `repository` is not due before `instant` (the others go on), e.g. a walk
    /// held back at the rate-limit reserve until the reset.
    public mutating func postpone(_ repository: MirrorConfiguration.Repository, until instant: ContinuousClock.Instant) {
        guard let index = positions[repository.key] else { return }
        jobs[index].due = max(jobs[index].due, instant)
    }

    /// Nothing is due before `instant`.
    public mutating func pause(until instant: ContinuousClock.Instant) {
        pausedUntil = max(pausedUntil ?? instant, instant)
    }

    /// Applies a reloaded configuration: kept repositories keep their grid and
    /// what they last saw (a changed interval takes effect from the next slot,
    /// never later than planned), new ones are due at once, removed ones are dropped.
    public mutating func apply(_ configuration: MirrorConfiguration, now: ContinuousClock.Instant) {
        let old = Dictionary(jobs.map { ($0.key, $0) }, uniquingKeysWith: { first, _ in first })
        jobs = configuration.repositories.enumerated().map { index, repository in
            let policy = configuration.pollingPolicy(for: repository)
            guard var job = old[repository.key] else {
                return Job(
                    repository: repository, policy: policy, activity: nil, interval: policy.minimum, anchor: now, due: now,
                    order: index)
            }
            job.repository = repository
            job.order = index
            job.policy = policy
            let interval = job.activity == nil ? policy.minimum : policy.interval(quietFor: job.quietFor(now: now), moved: false)
            if interval != job.interval {
                job.interval = interval
                job.due = min(job.due, Self.slot(after: now, anchor: job.anchor, interval: interval))
            }
            return job
        }
        nextOrder = jobs.count
        positions = Self.positions(of: jobs)
    }

    /// The first `anchor + k × interval` later than `instant`.
    static func slot(
        after instant: ContinuousClock.Instant, anchor: ContinuousClock.Instant,
        interval: Duration
    ) -> ContinuousClock.Instant {
        guard instant >= anchor else { return anchor }
        let steps = ((instant - anchor) / interval).rounded(.down) + 1
        var due = anchor + interval * steps
        while due <= instant { due += interval }
        return due
    }
}
