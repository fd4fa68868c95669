import Foundation
import Logging
import MirrorCore

/// What the configuration selects by listing: repositories of `OWNER/*`
/// patterns (`PatternDiscovery`) and branches of `branches:` globs
/// (`BranchDiscovery`), each run when due, both expanding the configuration
/// the plan polls.
struct Discoveries {
    private var patterns = PatternDiscovery()
    private var branches = BranchDiscovery()
    /// When each runs next; `nil` when the configuration has none of it.
    private var patternsDue: ContinuousClock.Instant?
    private var branchesDue: ContinuousClock.Instant?

    init(configuration: MirrorConfiguration) { reset(for: configuration) }

    /// Both due at once (a start, a reload), or never when the configuration has none.
    mutating func reset(for configuration: MirrorConfiguration) {
        patternsDue = configuration.patterns.isEmpty ? nil : .now
        branchesDue = configuration.branchGlobs.isEmpty && !configuration.patterns.contains { $0.branches != nil } ? nil : .now
    }

    var nextDue: ContinuousClock.Instant? { [patternsDue, branchesDue].compactMap { $0 }.min() }

    func expanded(_ configuration: MirrorConfiguration) -> MirrorConfiguration {
        branches.expanded(patterns.expanded(configuration))
    }

    /// Branches its globs selected for the first time since the last call, by lowercased repository name.
    mutating func takeNewBranches() -> [String: BranchDiscovery.NewBranches] { branches.takeNewBranches() }

    /// A repository was created, renamed or transferred: the patterns are listed again now.
    mutating func repositoryChanged(_ configuration: MirrorConfiguration) {
        if !configuration.patterns.isEmpty { patternsDue = .now }
    }

    /// A push to a repository with globs may have created a branch: its branches are listed again now.
    mutating func pushed(to repository: RepositoryName, _ configuration: MirrorConfiguration) {
        let key = repository.description.lowercased()
        if patterns.expanded(configuration).branchGlobs.contains(where: { $0.key == key }) { branchesDue = .now }
    }

    /// Runs what is due. `ran`: the expanded configuration may have changed;
    /// `pause`: a rate limit that every request should wait for.
    mutating func runDue(
        settings: DaemonSettings, logger: Logger,
        listed: (MirrorConfiguration.BranchGlobs, Set<String>) async throws -> BranchDiscovery.ListingCheck
    ) async -> (ran: Bool, pause: ContinuousClock.Instant?) {
        var ran = false
        var pause: ContinuousClock.Instant?
        if let due = patternsDue, due <= .now {
            ran = true
            let globsBefore = patterns.expanded(settings.configuration).branchGlobs
            defer {
                // Repositories new to a pattern with `branches:` have their branches listed at once.
                if patterns.expanded(settings.configuration).branchGlobs != globsBefore { branchesDue = .now }
            }
            switch await patterns.run(settings: settings, logger: logger) {
            case .finished: patternsDue = PatternDiscovery.interval(of: settings.configuration).map { .now + $0 }
            case .rateLimited(let resume):
                pause = resume
                patternsDue = resume
            case .reserveHeld(let resume): patternsDue = resume
            }
        }
        if pause == nil, let due = branchesDue, due <= .now {
            ran = true
            // The globs of the file's repositories, and of those its patterns with `branches:` selected.
            let configuration = patterns.expanded(settings.configuration)
            switch await branches.run(settings: settings, configuration: configuration, logger: logger, listed: listed) {
            case .finished:
                branchesDue = BranchDiscovery.interval(of: configuration).map { .now + $0 } ?? Self.patternsInterval(settings.configuration)
            case .rateLimited(let resume):
                pause = resume
                branchesDue = resume
            case .reserveHeld(let resume): branchesDue = resume
            }
        }
        return (ran, pause)
    }

    /// With only patterns' `branches:` (no repository selected yet), branches are
    /// listed again after the patterns' next discovery.
    private static func patternsInterval(_ configuration: MirrorConfiguration) -> ContinuousClock.Instant? {
        configuration.patterns.contains { $0.branches != nil } ? PatternDiscovery.interval(of: configuration).map { .now + $0 } : nil
    }
}
