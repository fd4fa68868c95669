import Foundation
import Logging
import MirrorCore

extension SyncService {
    /// What the in-process plan carries from one event to the next (`schedule`):
    /// the schedule, what discovery selected, and what each repository's syncs have shown.
    struct PlanState {
        var schedule: SyncSchedule
        /// Patterns (OWNER/*) and branch globs are listed at once, then on their shortest intervals.
        var discoveries: Discoveries
        /// Repositories whose history has synced: their syncs are polls, never a first sync.
        var hasSynced: Set<String>
        /// When a push webhook for each repository arrived, until a sync started after it stores the branch.
        var pushedAt: [String: ContinuousClock.Instant] = [:]
        /// Branches first selected by their globs, by lowercased repository name: handed to the
        /// repository's next sync, which reads them over git in one fetch when nothing is stored yet.
        var newBranches: [String: BranchDiscovery.NewBranches] = [:]

        init(configuration: MirrorConfiguration, startup: StoreStartup) {
            schedule = SyncSchedule(configuration: configuration, synced: startup.synced, activity: startup.activity, now: .now)
            discoveries = Discoveries(configuration: configuration)
            hasSynced = startup.synced
        }

        /// The job due soonest that a lane may start now; none while every lane is busy.
        /// Asked after every sync, of thousands of jobs: what decides is worked out
        /// once per question, and each job costs two look-ups.
        func nextStartable() -> SyncSchedule.Job? {
            guard schedule.running.count < SyncService.lanes else { return nil }
            // Branches of one repository share its lock: the next waits for the lane, rather than
            // finding the lock held and waiting a whole interval (`branches:`, docs/BRANCHES.md).
            let busyRepositories = Set(schedule.running.map { SyncSchedule.Job.repositoryKey(ofKey: $0) })
            let firstSyncMayStart = schedule.running.count(where: { !hasSynced.contains($0) }) < SyncService.firstSyncLanes
            return schedule.next { job in
                !busyRepositories.contains(job.repositoryKey) && (firstSyncMayStart || hasSynced.contains(job.key))
            }
        }

        /// When the plan has something to do next: a job a lane may start, or a discovery.
        var nextWakeUp: ContinuousClock.Instant? {
            [nextStartable()?.due, discoveries.nextDue].compactMap { $0 }.min()
        }
    }
}

extension SyncService {
    /// What the claim loop carries from one event to the next (`claimFromQueue`).
    struct ClaimState {
        var discovery = PatternDiscovery()
        var discoveryDue: ContinuousClock.Instant?
        /// Whether this daemon lists the patterns' owners (`nil` until asked).
        var listsPatterns: Bool?
        /// Claims whose lanes have not ended.
        var held = 0
        var pausedUntil: ContinuousClock.Instant?
        /// Targets already added to the queue.
        var queued: Set<SyncTarget> = []
        /// A database that does not answer is logged once, not at every claim poll.
        var failing = false

        init(configuration: MirrorConfiguration) {
            discoveryDue = configuration.patterns.isEmpty ? nil : .now
        }

        mutating func trouble(_ message: Logger.Message, _ error: any Error, logger: Logger) {
            logger.log(level: failing ? .debug : .warning, message, metadata: ["error": "\(error)"])
            failing = true
        }

        /// Adds the repositories of `configuration` the queue does not hold yet.
        /// A repository with branch globs is claimed too: its branches are listed under the claim.
        mutating func queue(_ configuration: MirrorConfiguration, in queue: ClaimQueue, logger: Logger) {
            let targets = Set(
                configuration.repositories.map { SyncTarget(repository: $0.name) }
                    + configuration.branchGlobs.map { SyncTarget(repository: $0.name) })
            guard !targets.isSubset(of: queued) else { return }
            do {
                try queue.with { try $0.addTargets(Array(targets.subtracting(queued))) }
                queued.formUnion(targets)
            } catch {
                trouble("could not add repositories to the shared queue; trying again", error, logger: logger)
            }
        }
    }
}
