import Foundation
import MirrorCore
import Synchronization

/// Which of commitsd's syncs also read their repository's missing changed paths
/// over git (`RepositorySync.pathBackfillMinimum`): one at a time and never beside
/// a first sync (none is claimed while one runs), so backfills and first syncs share
/// the first-sync lane and a lane is always left for the polls; each repository at
/// most once per `interval` after its first check of this run. The first check reads whatever lacks
/// paths (a store mirrored without them); later ones wait for
/// `SyncEngine.pathBackfillThreshold` commits, as the fetch reads the branch's
/// whole history of trees however few lack them.
final class PathBackfills: Sendable {
    static let interval: Duration = .seconds(6 * 3600)

    private struct State {
        var running = false
        var firstSyncs = 0
        /// When each repository's complete sync last looked for missing paths.
        var checked: [String: ContinuousClock.Instant] = [:]
    }

    private let state = Mutex(State())

    /// How many commits must lack paths for this sync of `repository` to read them;
    /// nil: not this time. A non-nil answer must be followed by `finish`.
    func begin(_ repository: RepositoryName, now: ContinuousClock.Instant = .now) -> Int? {
        state.withLock { state in
            guard !state.running, state.firstSyncs == 0 else { return nil }
            let last = state.checked[repository.description.lowercased()]
            if let last, now - last < Self.interval { return nil }
            state.running = true
            return last == nil ? 1 : SyncEngine.pathBackfillThreshold
        }
    }

    /// Whether a backfill runs now: no first sync may be claimed meanwhile.
    var isRunning: Bool { state.withLock { $0.running } }

    func firstSyncBegan() { state.withLock { $0.firstSyncs += 1 } }
    func firstSyncEnded() { state.withLock { $0.firstSyncs -= 1 } }

    /// Ends what `begin` allowed: a complete sync looked at the paths, any other is looked at again next time.
    func finish(_ repository: RepositoryName, after outcome: RepositorySync.Outcome, now: ContinuousClock.Instant = .now) {
        var checked = false
        if case .synced(let report) = outcome { checked = report.complete }
        state.withLock { state in
            state.running = false
            if checked { state.checked[repository.description.lowercased()] = now }
        }
    }
}
