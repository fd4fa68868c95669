/// When each configured repository is synced next (the service's plan).
///
/// - Each repository polls on its own grid: `anchor + k × interval`. The
///   `i`-th of `n` repositories is anchored `interval × i / n` after start, so
///   polls are spread over the interval instead of coming in bursts, and the
///   spread survives syncs of any length (missed slots are skipped).
/// - Repositories that have never synced successfully go first, at once.
/// - `pause(until:)` holds everything back, e.g. until a rate-limit reset.
public struct SyncSchedule: Sendable {
    public struct Job: Sendable, Equatable {
        public var repository: MirrorConfiguration.Repository
        public var interval: Duration
        /// A point of the job's grid.
        public var anchor: ContinuousClock.Instant
        public var due: ContinuousClock.Instant
    }

    public private(set) var jobs: [Job] = []
    private var pausedUntil: ContinuousClock.Instant?

    /// `synced` holds the keys (`Repository.key`) of repositories that have synced before.
    public init(configuration: MirrorConfiguration, synced: Set<String>, now: ContinuousClock.Instant) {
        let count = configuration.repositories.count
        for (index, repository) in configuration.repositories.enumerated() {
            let interval = configuration.interval(for: repository)
            let anchor = now + interval * (Double(index) / Double(max(count, 1)))
            let due = synced.contains(repository.key) ? anchor : now
            jobs.append(Job(repository: repository, interval: interval, anchor: anchor, due: due))
        }
    }

    /// The job due soonest (the earliest configured one among equals).
    public var next: Job? {
        guard var job = jobs.min(by: { $0.due < $1.due }) else { return nil }
        if let pausedUntil, job.due < pausedUntil { job.due = pausedUntil }
        return job
    }

    /// Marks `repository` as just synced (or attempted): due at its next grid point after `now`.
    public mutating func completed(_ repository: MirrorConfiguration.Repository, now: ContinuousClock.Instant) {
        guard let index = jobs.firstIndex(where: { $0.repository.key == repository.key }) else { return }
        jobs[index].due = Self.slot(after: now, anchor: jobs[index].anchor, interval: jobs[index].interval)
    }

    /// Nothing is due before `instant`.
    public mutating func pause(until instant: ContinuousClock.Instant) {
        pausedUntil = max(pausedUntil ?? instant, instant)
    }

    /// Applies a reloaded configuration: kept repositories keep their grid (a
    /// changed interval takes effect from the next slot, never later than
    /// planned), new ones are due at once, removed ones are dropped.
    public mutating func apply(_ configuration: MirrorConfiguration, now: ContinuousClock.Instant) {
        let old = Dictionary(jobs.map { ($0.repository.key, $0) }, uniquingKeysWith: { first, _ in first })
        jobs = configuration.repositories.map { repository in
            let interval = configuration.interval(for: repository)
            guard var job = old[repository.key] else {
                return Job(repository: repository, interval: interval, anchor: now, due: now)
            }
            job.repository = repository
            if interval != job.interval {
                job.interval = interval
                job.due = min(job.due, Self.slot(after: now, anchor: job.anchor, interval: interval))
            }
            return job
        }
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
