import Foundation
import Logging

/// Syncing one repository, the way every executable does it: take the
/// repository's writer lock, open the store, run the engine, and classify how
/// it ended into one `Outcome`. Never throws; the executables only phrase the
/// outcome (a one-shot run prints it and picks an exit status, the service reschedules).
public struct RepositorySync: Sendable {
    public enum Outcome: Sendable {
        case synced(SyncReport)
        /// Another process holds the repository's lock (`holder` as it wrote it).
        case skipped(holder: String)
        /// A rate limit stopped the sync; trying again before `retryAt` is pointless.
        case rateLimited(GitHubError, retryAt: Date)
        /// Cancelled (a shutdown) at a page boundary; the walk resumes on the next run.
        case interrupted
        /// The user removed it from mirroring; not synced (its history is kept).
        case removed
        /// The walk stopped after the pages `pageLimit` allowed; the next run resumes it.
        case stepEnded(SyncStepEnded)
        case failed(Failure)
    }

    /// The error a sync failed with. Every error MirrorCore throws is an immutable
    /// value; `any Error` just cannot say so, hence the unchecked conformance.
    public struct Failure: @unchecked Sendable, CustomStringConvertible {
        public let error: any Error
        public var description: String { "\(error)" }
    }

    public let store: StoreLocation
    public let client: GitHubClient
    public let logger: Logger
    /// Written into the lock file, so a skipped writer can say who holds it.
    public let holder: String
    /// After a complete sync, the branch's paths are read over git when at least
    /// this many of the repository's commits lack them (`SyncEngine.backfillPaths`); nil: never.
    public var pathBackfillMinimum: Int?
    /// Whether a history read over git is read with its trees, and a complete branch's
    /// paths backfilled (`MirrorConfiguration.readsPaths(of:)`).
    public var paths: @Sendable (RepositoryName) -> Bool = { _ in true }
    /// Which tags a sync of the repository's default branch also records
    /// (`MirrorConfiguration.tagSelection(for:)`).
    public var tags: @Sendable (RepositoryName) -> TagSelection = { _ in .all }
    /// Whether a sync of the repository's default branch also records its pull requests
    /// (`MirrorConfiguration.readsPullRequests(of:)`).
    public var pullRequests: @Sendable (RepositoryName) -> Bool = { _ in false }
    /// Long first syncs read the history over git when set.
    public let gitBootstrap: GitBootstrap?
    /// Set when the caller holds a claim on the repository from a shared queue
    /// (`SyncLeases.openFencedWriter`): every writer comes from it, each write
    /// checked against the claim's lease, and no repository lock is taken, the
    /// claim being the exclusion. `nil`: the lock, then `store.openSyncWriter()`.
    public var openWriter: (@Sendable () throws -> any MirrorWriter)?
    /// Set only by a test that needs a batch of pages held open (`TestTimings.batchSeconds`):
    /// how long an open batch waits for the next page and stays open at most.
    public var heldBatches: Duration?

    /// The bootstrap a sync of `repository` reads git with: without trees where its paths are off.
    func gitBootstrap(for repository: RepositoryName) -> GitBootstrap? {
        guard var bootstrap = gitBootstrap else { return nil }
        bootstrap.readsChanges = bootstrap.readsChanges && paths(repository)
        return bootstrap
    }

    public init(store: StoreLocation, client: GitHubClient, logger: Logger, holder: String, gitBootstrap: GitBootstrap? = nil) {
        self.store = store
        self.client = client
        self.logger = logger
        self.holder = holder
        self.gitBootstrap = gitBootstrap
    }

    /// Syncs `repository`; one the user removed from mirroring only when
    /// `mirrorRemoved` says so (a sync by name), which mirrors it again. With a
    /// `pageLimit`, a walk stops after that many pages (`.stepEnded`). Runs on
    /// `DedicatedThreads.store`, never blocking a thread of the cooperative pool.
    /// `listedHead`: the head a branch listing of this run names (`SyncEngine.sync`).
    public func run(
        _ repository: RepositoryName, branch: String?, listedHead: String? = nil, mirrorRemoved: Bool = false,
        pageLimit: Int? = nil, progress: ((SyncProgress) -> Void)? = nil
    ) async -> Outcome {
        await DedicatedThreads.store.run {
            await runOnStoreThreads(
                repository, branch: branch, listedHead: listedHead, mirrorRemoved: mirrorRemoved, pageLimit: pageLimit,
                progress: progress)
        }
    }

    private func runOnStoreThreads(
        _ repository: RepositoryName, branch: String?, listedHead: String?, mirrorRemoved: Bool,
        pageLimit: Int?, progress: ((SyncProgress) -> Void)?
    ) async -> Outcome {
        await holdingLock(repository) { lock in
            await syncHolding(
                lock, repository, branch: branch, listedHead: listedHead, mirrorRemoved: mirrorRemoved, pageLimit: pageLimit,
                progress: progress)
        }
    }

    /// What a sync of the repository's default branch also records: its tags and pull requests.
    private func recordBesideDefaultBranch(
        of repository: RepositoryName, engine: SyncEngine, store: any MirrorWriter, into report: inout SyncReport
    ) async throws {
        var selection = tags(repository)
        var readsPulls = pullRequests(repository)
        guard selection != .none || readsPulls, let stored = try store.repository(named: repository),
            report.branch == stored.defaultBranch
        else { return }
        // An idle poll asks for one listing, the one asked for longer ago, so it costs one request
        // more than the commits' check, not two; a poll that brought commits asks for both.
        if selection != .none, readsPulls, report.added == 0,
            let tagsAt = try store.tagListing(repositoryID: stored.id).listedAt,
            let pullsAt = try store.pullRequestListing(repositoryID: stored.id).listedAt
        {
            if tagsAt <= pullsAt { readsPulls = false } else { selection = .none }
        }
        if selection != .none {
            try await beside("tags", of: repository, into: &report, failure: \.tagsFailure) { report in
                report.tags = try await engine.syncTags(repository, selection: selection, commitsAdded: report.added > 0)
            }
        }
        if readsPulls {
            try await beside("pull requests", of: repository, into: &report, failure: \.pullRequestsFailure) { report in
                report.pullRequests = try await engine.syncPullRequests(repository)
            }
        }
    }

    /// Runs `body` after a branch's sync, its requests counted in the report: its failure is
    /// reported at `failure`, beside the sync, which stands, except for what stops every sync
    /// (a rate limit, cancellation, a store that cannot be written).
    private func beside(
        _ what: String, of repository: RepositoryName, into report: inout SyncReport,
        failure: WritableKeyPath<SyncReport, String?>, _ body: (inout SyncReport) async throws -> Void
    ) async throws {
        let before = client.usage
        do {
            try await body(&report)
        } catch let error as GitHubError where error.isRateLimit {
            throw error
        } catch let error as StoreError {
            throw error
        } catch let error as any StoreFailureReporting {
            throw error
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            let reason = client.redact("\(error)")
            report[keyPath: failure] = reason
            logger.warning("\(what) not read", metadata: ["repo": "\(repository)", "error": "\(reason)"])
        }
        let usage = client.usage
        report.requests += usage.requests - before.requests
        report.notModified += usage.notModified - before.notModified
        report.rateLimit = usage.rateLimit ?? report.rateLimit
    }

    private func syncHolding(
        _ lock: RepositoryLock?, _ repository: RepositoryName, branch: String?, listedHead: String?, mirrorRemoved: Bool,
        pageLimit: Int?, progress: ((SyncProgress) -> Void)?
    ) async -> Outcome {
        do {
            let store = try writer(lock)
            // Checked under the lock: a removal (which takes it too) is never raced.
            let stored = try store.repository(named: repository)
            let state = try stored.map { try store.repositoryState(repositoryID: $0.id) }
            if state == .removed && !mirrorRemoved { return .removed }
            // A daemon's claim: the other daemons write the same database meanwhile.
            let engine = SyncEngine(
                client: client, store: store, logger: logger, gitBootstrap: gitBootstrap(for: repository), progress: progress,
                pageLimit: pageLimit,
                sharesTheStore: openWriter != nil, heldBatches: heldBatches)
            var report = try await engine.sync(repository, branch: branch, listedHead: listedHead)
            if report.complete, let minimum = pathBackfillMinimum, paths(repository) {
                let started = ContinuousClock.now
                let backfill = try await engine.backfillPaths(repository, branch: report.branch, minimumUncovered: minimum)
                if case .stored(let commits, let requests, _) = backfill {
                    report.pathsRead = commits
                    report.gitRequests += requests
                    report.elapsed += .now - started
                }
            }
            try await recordBesideDefaultBranch(of: repository, engine: engine, store: store, into: &report)
            // It answered: a gone repository is back, a removed one synced by name is mirrored again
            // (unless the name now belongs to a new repository, which the sync adopted).
            if let stored, let state, state != .active, try store.repository(named: repository)?.id == stored.id {
                try store.setState(.active, repositoryID: stored.id, reason: nil)
            }
            return .synced(report)
        } catch let step as SyncStepEnded {
            return .stepEnded(step)
        } catch is CancellationError {
            recordInterruption(repository, branch: branch, note: "interrupted at a page boundary; resumes on the next run", lock)
            return .interrupted
        } catch let error as GitHubError where error.isRateLimit {
            if case .reserveReached(let reserve, _) = error {
                // The client stopped before the next request: the walk resumes from its checkpoint.
                recordInterruption(
                    repository, branch: branch,
                    note: "stopped at the rate-limit reserve (\(reserve)); resumes after the reset", lock)
            }
            return .rateLimited(error, retryAt: error.retryAt())
        } catch GitHubError.notFound(let name, let source) {
            // No lock file stays for a repository GitHub does not know: a mirrored
            // one is marked gone, a name never mirrored (mistyped) leaves nothing.
            if markGone(repository, lock) || !isMirrored(repository, lock) {
                lock?.release()
                RepositoryLock.removeLockFile(store: store, repository: repository)
            }
            return .failed(Failure(error: GitHubError.notFound(repository: name, tokenSource: source)))
        } catch {
            return .failed(Failure(error: error))
        }
    }

    /// What a run answers when it does not hold the repository's lock.
    protocol LockRefusal {
        /// Another process holds it (`holder` as it wrote it).
        static func skipped(holder: String) -> Self
        static func failed(_ failure: Failure) -> Self
    }

    /// Runs `body` holding the repository's lock (`nil` when the caller's claim
    /// is the exclusion, `openWriter`) and releases it after; or answers that
    /// another process holds it, or that taking it failed.
    func holdingLock<Answer: LockRefusal>(
        _ repository: RepositoryName, _ body: (RepositoryLock?) async -> Answer
    ) async -> Answer {
        let lock: RepositoryLock?
        if openWriter != nil {
            lock = nil
        } else {
            do {
                lock = try RepositoryLock.acquire(store: store, repository: repository, holder: holder)
            } catch RepositoryLockError.busy(_, let holder) {
                return .skipped(holder: holder ?? "unknown")
            } catch {
                return .failed(Failure(error: error))
            }
        }
        defer { lock?.release() }
        return await body(lock)
    }

    /// The daemon's claim's fenced writer, the repository lock's (a database's
    /// claim, fenced too), or the store's.
    func writer(_ lock: RepositoryLock?) throws -> any MirrorWriter {
        if let openWriter { return try openWriter() }
        return try lock?.openClaimWriter() ?? store.openSyncWriter()
    }

    /// A mirrored repository GitHub answers 404 for is gone: its history stays,
    /// it is no longer polled through a pattern, and it is active again when it
    /// reappears. Returns whether it was marked.
    private func markGone(_ repository: RepositoryName, _ lock: RepositoryLock?) -> Bool {
        guard let store = try? writer(lock),
            let stored = try? store.repository(named: repository), stored.githubID != nil,
            (try? store.repositoryState(repositoryID: stored.id)) == .active
        else { return false }
        logger.notice("GitHub answers 404 for a mirrored repository; marked gone, its history is kept", metadata: ["repo": "\(repository)"])
        return (try? store.setState(.gone, repositoryID: stored.id, reason: "GitHub answers 404 for it")) != nil
    }

    /// Whether the store holds the repository (under this name or a former one).
    private func isMirrored(_ repository: RepositoryName, _ lock: RepositoryLock?) -> Bool {
        guard let store = try? writer(lock) else { return true }
        return (try? store.repository(named: repository)) != nil
    }

    /// Replaces the engine's generic note in `last_error` with what happened.
    private func recordInterruption(_ repository: RepositoryName, branch: String?, note: String, _ lock: RepositoryLock?) {
        guard let store = try? writer(lock),
            let stored = try? store.repository(named: repository),
            let branch = branch ?? stored.defaultBranch
        else { return }
        try? store.recordFailure(repositoryID: stored.id, branch: branch, message: note, rateLimit: client.usage.rateLimit)
    }
}

extension GitHubError {
    /// When retrying after this rate limit makes sense: just after the reset GitHub
    /// named, as long as GitHub asked (at most an hour: a longer ask is a
    /// misbehaving server), 5 minutes after a secondary limit, else 15 minutes;
    /// at the reserve, just after the reset even when it has passed.
    public func retryAt(now: Date = Date()) -> Date {
        switch self {
        case .primaryRateLimit(let resetAt?, _) where resetAt > now:
            return resetAt.addingTimeInterval(1)
        case .reserveReached(_, let resetAt):
            // The client held back before a reset it saw coming; one that passed while the
            // sync wound down (likelier with syncs side by side) is no reason to wait 15 minutes.
            return max(resetAt, now).addingTimeInterval(1)
        case .retryAfterTooLong(let retryAt, _) where retryAt > now:
            return min(retryAt, now.addingTimeInterval(3600))
        case .secondaryRateLimit:
            return now.addingTimeInterval(5 * 60)
        default:
            return now.addingTimeInterval(15 * 60)
        }
    }
}

extension RepositorySync.Outcome: RepositorySync.LockRefusal {}
