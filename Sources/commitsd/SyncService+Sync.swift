import Foundation
import Logging
import MirrorCore
import ServiceLifecycle

extension SyncService {
    // MARK: - One sync (run by a lane of the plan)

    enum Outcome: Sendable {
        case synced(SyncReport)
        case skipped(holder: String)
        case failed(String)
        case rateLimited(resume: ContinuousClock.Instant)
        /// Stopped at the rate-limit reserve with a token: only this repository
        /// waits for the reset, the others' polls (free 304s) go on.
        case reserveHeld(resume: ContinuousClock.Instant)
        case interrupted
        /// Removed from mirroring by the user (named in the file all the same).
        case removed
        /// The walk stopped after `pagesPerStep` pages; the next sync resumes it.
        case stepEnded(SyncStepEnded)
        /// A fenced write was refused: the claim's lease is lost, nothing was
        /// written under it (the claim loop logs it, once).
        case leaseLost(String)
    }

    /// Syncs one repository (`RepositorySync`: lock, store, engine) and logs what
    /// happened and what commitsd does next; never throws.
    /// With `openWriter` (a claim's fenced writer), no repository lock is taken (`RepositorySync.openWriter`).
    /// With `newBranches` (branch → listed head, branches its globs just selected), a
    /// repository with nothing stored first reads them all over git in one fetch.
    /// `listedHead`: the head a branch listing made for this sync names (`SyncEngine.sync`).
    func sync(
        _ repository: MirrorConfiguration.Repository, settings: DaemonSettings, logger: Logger,
        openWriter: (@Sendable () throws -> any MirrorWriter)? = nil, newBranches: [String: String]? = nil,
        listedHead: String? = nil
    ) async -> Outcome {
        var logger = logger
        logger[metadataKey: "repo"] = "\(repository.name)"
        if let branch = repository.branch { logger[metadataKey: "branch"] = "\(branch)" }
        // Its own count of requests: other lanes' requests are not this sync's.
        var configured = RepositorySync(
            store: settings.store, client: settings.client.countingSeparately(), logger: logger, holder: "commitsd",
            gitBootstrap: settings.configuration.gitBootstrap ? GitBootstrap(readsChanges: settings.configuration.paths) : nil)
        configured.openWriter = openWriter
        configured.tags = { [configuration = settings.configuration] in configuration.tagSelection(for: $0) }
        configured.pullRequests = { [configuration = settings.configuration] in configuration.readsPullRequests(of: $0) }
        configured.paths = { [configuration = settings.configuration] in configuration.readsPaths(of: $0) }
        let sync = configured
        // A graceful shutdown cancels the sync; it stops at a page boundary.
        let outcome = await cancelWhenGracefulShutdown {
            if let newBranches, case .failed(let failure) = await sync.readBranchesOverGit(repository.name, heads: newBranches) {
                // Nothing was recorded; the sync below meets the same error and says what commitsd does.
                sync.logger.debug("new branches not read over git", metadata: ["error": "\(DaemonAdvice.line(for: failure.error))"])
            }
            return await sync.run(repository.name, branch: repository.branch, listedHead: listedHead, pageLimit: Self.pagesPerStep)
        }
        switch outcome {
        case .synced(let report):
            return .synced(report)
        case .skipped(let holder):
            logger.notice(
                "skipped: another process is syncing this repository; commitsd tries again next interval",
                metadata: ["lock.holder": "\(holder)"])
            return .skipped(holder: holder)
        case .rateLimited(let error, let retryAt):
            let seconds = max(0, Int(retryAt.timeIntervalSinceNow.rounded(.up)))
            let pause: Logger.Metadata = ["pause.seconds": "\(seconds)", "pause.until": "\(ISO8601Timestamp.format(retryAt))"]
            if case .reserveReached(let reserve, _) = error, settings.tokenSource != nil {
                // The client stopped before the next request: the walk resumes from its checkpoint.
                logger.notice(
                    "stopped at the rate-limit reserve; this repository waits for the reset, polls of the others go on",
                    metadata: pause.merging(["rate.reserve": "\(reserve)"]) { $1 })
                return .reserveHeld(resume: .now + .seconds(seconds))
            } else if case .reserveReached(let reserve, _) = error {
                logger.notice(
                    "stopped at the rate-limit reserve; pausing all syncs until the reset",
                    metadata: pause.merging(["rate.reserve": "\(reserve)"]) { $1 })
            } else {
                logger.warning(
                    "rate limited; pausing all syncs until the reset, then every walk resumes from its checkpoint",
                    metadata: pause.merging(["error": "\(error)"]) { $1 })
            }
            return .rateLimited(resume: .now + .seconds(seconds))
        case .interrupted where !Task.isShuttingDownGracefully:
            return .interrupted  // cancelled by its claim's loss, which the claim loop logs
        case .interrupted:
            logger.notice("sync interrupted by shutdown at a page boundary; it resumes on the next start")
            return .interrupted
        case .removed:
            logger.notice("not syncing a repository removed from mirroring (its history is kept); take it out of the configuration")
            return .removed
        case .stepEnded(let step):
            logger.info(
                "walk paused at a page boundary; it continues once the polls already due have run",
                metadata: ["sync.pages": "\(step.pages)"])
            return .stepEnded(step)
        case .failed(let failure) where (failure.error as? StoreError)?.isLeaseLost == true:
            return .leaseLost("\(failure.error)")
        case .failed(let failure) where Task.isShuttingDownGracefully:
            logger.notice("sync interrupted by shutdown", metadata: ["error": "\(failure)"])
            return .interrupted
        case .failed(let failure):
            if let reason = MirrorMetrics.StoreWriteFailure(ofSyncError: failure.error) { metrics.recordStoreWriteFailure(reason) }
            let line = DaemonAdvice.line(for: failure.error)
            logger.error("sync failed; commitsd tries again next interval", metadata: ["error": "\(line)"])
            return .failed(line)
        }
    }
}

extension StoreError {
    var isLeaseLost: Bool {
        if case .leaseLost = self { return true }
        return false
    }
}
