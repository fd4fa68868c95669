import Foundation
import Logging
import MirrorCore

extension SyncService {
    /// What the loop carries from one event to the next besides the settings
    /// (`LoopState`): pattern discovery, the claims held, the targets followed,
    /// and what the syncs so far have shown.
    struct ClaimState {
        var discovery = PatternDiscovery()
        var discoveryDue: ContinuousClock.Instant?
        /// Whether this daemon lists the patterns' owners (`nil` until asked).
        var listsPatterns: Bool?
        /// Claims whose lanes have not ended.
        var held = 0
        var pausedUntil: ContinuousClock.Instant?
        /// The plans the queue follows, by target.
        var followed: [SyncTarget: SyncTargetPlan] = [:]
        /// Repositories (lowercased names) whose history has synced: their syncs are polls, never a first sync.
        var hasSynced: Set<String>
        /// What the store told at start of each synced repository's default branch, by lowercased name.
        let activityAtStart: [String: PollActivity]
        /// When a push webhook for each repository (lowercased name) arrived, until a sync started after it stores it.
        var pushedAt: [String: ContinuousClock.Instant] = [:]
        /// A database that does not answer is logged once, not at every claim poll.
        var failing = false
        /// The configuration with what discovery selected, worked out again only when either changed:
        /// a daemon of thousands of repositories takes an event after every sync.
        private var selection: MirrorConfiguration?
        /// Whether the queue has yet to follow the latest selection.
        private(set) var followPending = true

        init(configuration: MirrorConfiguration, startup: StoreStartup) {
            discoveryDue = configuration.patterns.isEmpty ? nil : .now
            // Keys are `owner/name@branch`: a repository has synced once any of its branches has.
            hasSynced = Set(startup.synced.map(SyncService.repositoryKey(ofKey:)))
            activityAtStart = Dictionary(
                startup.activity.filter { $0.key.hasSuffix("@") }.map { (String($0.key.dropLast()), $0.value) },
                uniquingKeysWith: { first, _ in first })
        }

        mutating func trouble(_ message: Logger.Message, _ error: any Error, logger: Logger) {
            logger.log(level: failing ? .debug : .warning, message, metadata: ["error": "\(error)"])
            failing = true
        }

        /// `configuration` with the repositories and globs its patterns selected.
        mutating func selected(from configuration: MirrorConfiguration) -> MirrorConfiguration {
            if let selection { return selection }
            let expanded = discovery.expanded(configuration)
            selection = expanded
            return expanded
        }

        /// A reload or a discovery may have changed what is selected: it is worked out and followed again.
        mutating func selectionChanged() {
            selection = nil
            followPending = true
        }

        /// Has the queue follow every repository of `configuration` (a repository with
        /// branch globs too: its branches are listed under its claim), each on the
        /// shortest interval of its entries; only what changed since the last call is sent.
        mutating func follow(_ configuration: MirrorConfiguration, in queue: ClaimQueue, logger: Logger) {
            let plans = Self.plans(of: configuration, hasSynced: hasSynced, activity: activityAtStart)
            let changed = plans.filter { followed[$0.target] != $0 }
            do {
                if !changed.isEmpty { try queue.with { try $0.follow(changed) } }
                for plan in changed { followed[plan.target] = plan }
                followPending = false
            } catch {
                trouble("could not add repositories to the queue; trying again", error, logger: logger)
            }
        }

        /// One plan per repository, in the configured order.
        static func plans(
            of configuration: MirrorConfiguration, hasSynced: Set<String>, activity: [String: PollActivity]
        ) -> [SyncTargetPlan] {
            var plans: [SyncTargetPlan] = []
            var index: [String: Int] = [:]
            let entries =
                configuration.repositories.map { ($0.name, configuration.pollingPolicy(for: $0)) }
                + configuration.branchGlobs.map { ($0.name, configuration.pollingPolicy(for: $0.entry(for: ""))) }
            for (name, policy) in entries {
                let key = name.description.lowercased()
                if let at = index[key] {
                    if policy.minimum < plans[at].policy.minimum { plans[at].policy = policy }
                    continue
                }
                index[key] = plans.count
                plans.append(
                    SyncTargetPlan(
                        target: SyncTarget(repository: name), policy: policy, hasSynced: hasSynced.contains(key),
                        activity: activity[key]))
            }
            return plans
        }
    }

    /// The repository's part of a `Repository.key` (`owner/name`): a repository's name holds no `@`, a branch's may.
    static func repositoryKey(ofKey key: String) -> String {
        String(key.prefix { $0 != "@" })
    }
}
