import CoreMetrics
import Foundation

/// The metrics the service serves at `/metrics` and a one-shot sync writes to a
/// node_exporter textfile, recorded through swift-metrics into the factory
/// given (a Prometheus registry in both programs), so the names and labels are
/// the same wherever they are read. Names follow Prometheus conventions:
/// `_total` counters, `_seconds` units, one metric per meaning.
public struct MirrorMetrics: Sendable {
    /// How one sync attempt of one repository ended (the `outcome` label).
    public enum SyncOutcome: String, Sendable {
        case success
        case failure
        case rateLimited = "rate_limited"
        /// Another process held the repository's writer lock.
        case skipped
        case interrupted
        /// A walk stopped after its step of pages, to resume once the polls due have run.
        case step
    }

    public static let prefix = "commits_mirror_"
    public static let syncDurationName = prefix + "sync_duration_seconds"
    /// From a 304 poll (milliseconds) to a first walk of a large history (minutes).
    public static let syncDurationBuckets: [Duration] = [
        .milliseconds(50), .milliseconds(250), .seconds(1), .seconds(5), .seconds(15), .seconds(60),
        .seconds(300), .seconds(900),
    ]

    let factory: any MetricsFactory

    public init(factory: any MetricsFactory) {
        self.factory = factory
    }

    /// One finished sync attempt: its outcome, and for a completed sync its duration.
    public func recordSync(repository: RepositoryName, outcome: SyncOutcome, duration: Duration?) {
        let name = repository.description.lowercased()
        let syncs = { (outcome: SyncOutcome) in
            Counter(
                label: Self.prefix + "syncs_total", dimensions: [("repository", name), ("outcome", outcome.rawValue)],
                factory: factory)
        }
        // Success and failure exist from a repository's first attempt, at zero, so the
        // first failure is an increase an alert sees and "no success" is a series to compare.
        for other in [SyncOutcome.success, .failure] where other != outcome { _ = syncs(other) }
        // The duration before the count: a scrape that sees this sync counted sees its duration too.
        if let duration {
            // One histogram for every repository: by repository it was eleven series each
            // (110,000 at 10,000 repositories, most of a scrape) and 1 KB of the daemon's memory.
            let nanoseconds = duration.components.seconds * 1_000_000_000 + duration.components.attoseconds / 1_000_000_000
            CoreMetrics.Timer(label: Self.syncDurationName, dimensions: [], factory: factory).recordNanoseconds(nanoseconds)
        }
        syncs(outcome).increment()
    }

    /// The requests a client made since `before` (its usage counters only grow),
    /// by outcome: `fetched` (answered with a body, any status but 304), `not_modified` (a 304), `retried` (a retry after a failure).
    public func recordRequests(since before: GitHubClient.Usage, now: GitHubClient.Usage) {
        let notModified = max(0, now.notModified - before.notModified)
        let answered = max(0, now.requests - before.requests)
        let retried = max(0, now.retries - before.retries)
        for (outcome, count) in [("fetched", answered - notModified), ("not_modified", notModified), ("retried", retried)] {
            // Created even at zero, so every outcome is a series from the first scrape.
            let counter = Counter(label: Self.prefix + "requests_total", dimensions: [("outcome", outcome)], factory: factory)
            if count > 0 { counter.increment(by: count) }
        }
    }

    /// The rate limit last seen for a credential, labelled by its kind
    /// (`GitHubClient.Configuration.credentialKind`: `environment`, `file`,
    /// `credential`, `app` or `none`): never a secret, nor the path of its file.
    public func recordRateLimit(_ rateLimit: RateLimitStatus?, credentialKind token: String) {
        guard let rateLimit else { return }
        Gauge(label: Self.prefix + "rate_limit_remaining", dimensions: [("token", token)], factory: factory)
            .record(rateLimit.remaining)
        // The limit beside what remains, so an alert reads a fraction whatever the credential's quota.
        Gauge(label: Self.prefix + "rate_limit_limit", dimensions: [("token", token)], factory: factory)
            .record(rateLimit.limit)
        if let resetAt = rateLimit.resetAt {
            Gauge(label: Self.prefix + "rate_limit_reset_timestamp_seconds", dimensions: [("token", token)], factory: factory)
                .record(resetAt.timeIntervalSince1970.rounded())
        }
    }

    /// The longest a repository's polling policy lets pass between two polls
    /// (an adaptive policy's maximum), so an alert can say "not synced for N
    /// intervals" of each repository's own schedule.
    public func recordPollingInterval(repository: RepositoryName, policy: PollingPolicy) {
        let longest =
            switch policy {
            case .fixed(let interval): interval
            case .adaptive(_, let maximum): maximum
            }
        Gauge(
            label: Self.prefix + "poll_interval_max_seconds", dimensions: [("repository", repository.description.lowercased())],
            factory: factory
        ).record(longest.inSeconds)
    }

    /// What the store holds: commits per repository and the last success per
    /// repository and branch, for every repository (at start-up, so a restarted
    /// service reports them before its first sync) or for the one just synced
    /// (reading every repository after each sync made a round quadratic).
    public func recordStored(_ store: any MirrorReading, repository: RepositoryName? = nil) throws {
        var commits: [String: Int] = [:]
        let states: [SyncState]
        if let repository {
            guard let stored = try store.repository(named: repository) else { return }
            states = try store.syncStates(repositoryID: stored.id)
        } else {
            states = try store.allSyncStates()
        }
        for state in states {
            let name = state.repository.lowercased()
            commits[name] = max(commits[name] ?? 0, state.commits)
            if let text = state.lastSuccessAt, let date = ISO8601Timestamp.parse(text) {
                Gauge(
                    label: Self.prefix + "last_success_timestamp_seconds",
                    dimensions: [("repository", name), ("branch", state.branch)], factory: factory
                )
                .record(date.timeIntervalSince1970)
            }
        }
        for (name, count) in commits {
            Gauge(label: Self.prefix + "commits", dimensions: [("repository", name)], factory: factory).record(count)
        }
    }
}
