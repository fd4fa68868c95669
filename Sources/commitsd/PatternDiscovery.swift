import Foundation
import Logging
import MirrorCore

/// The repositories the configuration's patterns (`OWNER/*`) select, listed
/// once per owner each time discovery is due. An owner whose listing fails
/// keeps the repositories its last good listing selected.
struct PatternDiscovery {
    /// What each owner's last good listing selected, by lowercased owner: an
    /// entry per repository, or its branch globs when its pattern has `branches:`.
    private var selected: [String: [Selected]] = [:]

    enum Selected: Equatable {
        case repository(MirrorConfiguration.Repository)
        case branches(MirrorConfiguration.BranchGlobs)

        var name: RepositoryName {
            switch self {
            case .repository(let entry): entry.name
            case .branches(let globs): globs.name
            }
        }
    }

    /// How a discovery round ended.
    enum Ending {
        case finished
        /// A rate limit stopped it: nothing should be requested before `resume`.
        case rateLimited(resume: ContinuousClock.Instant)
        /// The rate-limit reserve stopped a listing (with a token): only listings wait for `resume`.
        case reserveHeld(resume: ContinuousClock.Instant)

        /// How a turn goes on once listing `what` of `subject` failed: a rate limit
        /// ends it until its reset, cancellation ends it, and any other failure is
        /// logged and the turn goes on (nil), keeping what the last listing selected.
        static func after(
            _ error: any Error, listing what: String, of subject: Logger.Metadata, keeping kept: String,
            _ settings: DaemonSettings, _ logger: Logger
        ) -> Ending? {
            switch error {
            case let error as GitHubError where error.isRateLimit:
                let retryAt = error.retryAt()
                logger.warning(
                    "rate limited while listing \(what); pausing until the reset",
                    metadata: subject.merging(["error": "\(error)", "pause.until": "\(ISO8601Timestamp.format(retryAt))"]) { $1 })
                let resume = ContinuousClock.now + .seconds(max(0, retryAt.timeIntervalSinceNow.rounded(.up)))
                if case .reserveReached = error, settings.tokenSource != nil { return .reserveHeld(resume: resume) }
                return .rateLimited(resume: resume)
            case is CancellationError:
                return .finished
            default:
                logger.error(
                    "listing \(what) failed; keeping \(kept)",
                    metadata: subject.merging(["error": "\(DaemonAdvice.line(for: error))"]) { $1 })
                return nil
            }
        }
    }

    /// The configuration with every discovered repository added (as an entry
    /// without a branch, or as branch globs when its pattern has `branches:`,
    /// polled on its pattern's interval); a repository the file names itself
    /// keeps its own entry.
    func expanded(_ configuration: MirrorConfiguration) -> MirrorConfiguration {
        var expanded = configuration
        var known = Set(configuration.repositories.map { $0.name.description.lowercased() } + configuration.branchGlobs.map(\.key))
        for owner in Self.owners(of: configuration) {
            for found in selected[owner.lowercased()] ?? [] where known.insert(found.name.description.lowercased()).inserted {
                switch found {
                case .repository(let entry): expanded.repositories.append(entry)
                case .branches(let globs): expanded.branchGlobs.append(globs)
                }
            }
        }
        return expanded
    }

    /// When discovery is due again: the shortest interval among the patterns.
    static func interval(of configuration: MirrorConfiguration) -> Duration? {
        configuration.patterns.map { $0.interval ?? configuration.defaultInterval }.min()
    }

    /// Lists every owner the patterns name and records what they select.
    mutating func run(settings: DaemonSettings, logger: Logger) async -> Ending {
        let configuration = settings.configuration
        let discovery = RepositoryDiscovery(store: settings.store, client: settings.client.countingSeparately(), logger: logger)
        for owner in Self.owners(of: configuration) {
            let (patterns, selections) = Self.selections(of: owner, in: configuration)
            do {
                let outcome = try await discovery.discover(owner: owner, selections: selections)
                selected[owner.lowercased()] = Self.entries(outcome.selected, patterns: patterns)
                if !outcome.added.isEmpty || !outcome.returned.isEmpty {
                    logger.notice(
                        "discovered repositories to mirror",
                        metadata: [
                            "owner": "\(owner)", "discovery.added": "\(outcome.added.map(\.description).joined(separator: ","))",
                            "discovery.returned": "\(outcome.returned.map(\.description).joined(separator: ","))",
                        ])
                }
            } catch {
                let subject: Logger.Metadata = ["owner": "\(owner)"]
                let kept = "the repositories its last listing selected"
                if let ending = Ending.after(error, listing: "an owner's repositories", of: subject, keeping: kept, settings, logger) {
                    return ending
                }
            }
        }
        return .finished
    }

    /// Takes, for every owner the patterns name, what the store's last recorded
    /// listing selects (`RepositoryDiscovery.storedSelection`), without a
    /// request: what a daemon does while another daemon sharing the database
    /// holds the turn to list. An owner not listed yet, or not readable now,
    /// keeps what it selected before.
    mutating func adoptStoredListings(settings: DaemonSettings, logger: Logger) async {
        let configuration = settings.configuration
        let discovery = RepositoryDiscovery(store: settings.store, client: settings.client, logger: logger)
        for owner in Self.owners(of: configuration) {
            let (patterns, selections) = Self.selections(of: owner, in: configuration)
            do {
                guard let found = try await discovery.storedSelection(owner: owner, selections: selections) else { continue }
                selected[owner.lowercased()] = Self.entries(found, patterns: patterns)
            } catch {
                logger.debug(
                    "could not read the repositories another daemon listed; keeping the last ones read",
                    metadata: ["owner": "\(owner)", "error": "\(error)"])
            }
        }
    }

    /// The configuration's patterns on `owner`, and what each selects.
    private static func selections(
        of owner: String, in configuration: MirrorConfiguration
    ) -> ([MirrorConfiguration.Pattern], [RepositoryDiscovery.Selection]) {
        let patterns = configuration.patterns.filter { $0.pattern.owner.lowercased() == owner.lowercased() }
        let selections = patterns.map { entry in
            let includes = configuration.includes(for: entry)
            return RepositoryDiscovery.Selection(
                pattern: entry.pattern, includeForks: includes.forks, includeArchived: includes.archived)
        }
        return (patterns, selections)
    }

    /// Entries for what was selected, each polled on its pattern's interval.
    private static func entries(_ selected: [RepositoryDiscovery.Selected], patterns: [MirrorConfiguration.Pattern]) -> [Selected] {
        selected.map { found in
            let pattern = patterns[found.selection]
            if let globs = pattern.branchGlobs(of: found.name) { return .branches(globs) }
            return .repository(MirrorConfiguration.Repository(name: found.name, interval: pattern.interval))
        }
    }

    /// The owners the patterns name, each once, in file order.
    private static func owners(of configuration: MirrorConfiguration) -> [String] {
        var owners: [String] = []
        for pattern in configuration.patterns where !owners.contains(where: { $0.lowercased() == pattern.pattern.owner.lowercased() }) {
            owners.append(pattern.pattern.owner)
        }
        return owners
    }
}
