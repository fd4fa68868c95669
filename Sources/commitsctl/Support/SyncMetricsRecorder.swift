import Foundation
import MirrorCore

/// Records each sync of a `commitsctl sync` run into `MirrorMetrics` (for
/// `--metrics-textfile`), the same way commitsd records its own.
final class SyncMetricsRecorder {
    let metrics: MirrorMetrics
    let client: GitHubClient
    /// The credential's kind (`GitHubClient.Configuration.credentialKind`), the rate limit's label.
    let credentialKind: String
    private let usageAtStart: GitHubClient.Usage

    init(metrics: MirrorMetrics, client: GitHubClient) {
        self.metrics = metrics
        self.client = client
        self.credentialKind = client.configuration.credentialKind
        usageAtStart = client.usage
    }

    /// One sync's outcome; only a success has a duration worth a histogram.
    func record(_ target: MirrorConfiguration.Repository, _ outcome: RepositorySync.Outcome, duration: Duration) {
        let kind: MirrorMetrics.SyncOutcome
        switch outcome {
        case .synced: kind = .success
        case .skipped: kind = .skipped
        case .rateLimited: kind = .rateLimited
        case .interrupted: kind = .interrupted
        case .stepEnded: kind = .step
        case .removed: kind = .skipped
        case .failed: kind = .failure
        }
        metrics.recordSync(repository: target.name, outcome: kind, duration: kind == .success ? duration : nil)
    }

    /// The run's requests, the last rate limit seen and what the store now holds.
    func finish(store: StoreLocation) {
        let usage = client.usage
        metrics.recordRequests(since: usageAtStart, now: usage)
        metrics.recordRateLimit(usage.rateLimit, credentialKind: credentialKind)
        if let reader = try? store.openCommitReader() { try? metrics.recordStored(reader) }
    }
}
