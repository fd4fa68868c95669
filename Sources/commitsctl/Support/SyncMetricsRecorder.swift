import Foundation
import MirrorCore

/// Records each sync of a `commitsctl sync` run into `MirrorMetrics` (for
/// `--metrics-textfile`), the same way commitsd records its own.
final class SyncMetricsRecorder {
    let metrics: MirrorMetrics
    let client: GitHubClient
    let token: String
    private let usageAtStart: GitHubClient.Usage

    init(metrics: MirrorMetrics, client: GitHubClient, token: String) {
        self.metrics = metrics
        self.client = client
        self.token = token
        usageAtStart = client.usage
    }

    func record(_ target: MirrorConfiguration.Repository, outcome: MirrorMetrics.SyncOutcome, duration: Duration? = nil) {
        metrics.recordSync(repository: target.name, outcome: outcome, duration: duration)
    }

    /// The run's requests, the last rate limit seen and what the store now holds.
    func finish(store: MirrorStore) {
        let usage = client.usage
        metrics.recordRequests(since: usageAtStart, now: usage)
        metrics.recordRateLimit(usage.rateLimit, token: token)
        try? metrics.recordStored(store)
    }
}

extension Optional where Wrapped == SyncMetricsRecorder {
    /// Runs one sync, recording its outcome when there is a recorder.
    func measure(_ target: MirrorConfiguration.Repository, _ body: () async throws -> SyncReport) async throws -> SyncReport {
        guard let recorder = self else { return try await body() }
        let started = ContinuousClock.now
        do {
            let report = try await body()
            recorder.record(target, outcome: .success, duration: ContinuousClock.now - started)
            return report
        } catch let error as GitHubError where error.isRateLimit {
            recorder.record(target, outcome: .rateLimited)
            throw error
        } catch is CancellationError {
            recorder.record(target, outcome: .interrupted)
            throw CancellationError()
        } catch {
            recorder.record(target, outcome: .failure)
            throw error
        }
    }
}
