import Foundation
import Logging
import MirrorCore

/// The branches the configuration's branch globs (`branches: ["release/*"]`,
/// `"*"`) select, found by listing each repository's branches whenever
/// discovery is due. Each listing is sent with the ETags of the last one, so a
/// repository whose branches did not change costs one 304 (0 points with a
/// token). A repository whose listing fails keeps the branches its last good
/// listing selected.
struct BranchDiscovery {
    /// What the check of a changed listing made of the stored branches it lacks
    /// (`SyncService.markGone`): whether it settled them all, and those GitHub
    /// says are still there, mirrored though the listing lacks them.
    struct ListingCheck {
        var settled: Bool
        var stillThere: [String] = []
    }

    /// Each repository's last good listing and the branches it selected, by lowercased name.
    private var listings: [String: BranchListing] = [:]
    /// The repositories whose listing in `listings` is the one the store keeps (`branch_listings`).
    private var kept: Set<String> = []
    private var selected: [String: [String]] = [:]
    /// The branches its last checked listing lacked that GitHub still has, by lowercased name.
    private var stillThere: [String: [String]] = [:]
    /// The globs each repository's gone branches were last looked for with (a reload may change them).
    private var checkedWith: [String: BranchSelection] = [:]
    /// Branches selected for the first time, with their listed heads, by lowercased repository
    /// name: the first sync of the repository reads them over git in one fetch (`takeNewBranches`).
    private var newBranches: [String: NewBranches] = [:]

    /// Branches of one repository selected for the first time, with the heads their listing named.
    struct NewBranches: Sendable {
        var repository: RepositoryName
        var heads: [String: String]
    }

    /// The branches selected for the first time since the last call, by lowercased repository name.
    mutating func takeNewBranches() -> [String: NewBranches] {
        defer { newBranches = [:] }
        return newBranches
    }

    /// The configuration with an entry for every selected branch (polled on its
    /// globs' interval); a branch the file names itself keeps its own entry.
    func expanded(_ configuration: MirrorConfiguration) -> MirrorConfiguration {
        var expanded = configuration
        var known = Set(configuration.repositories.map(\.key))
        for globs in configuration.branchGlobs {
            for branch in selected[globs.key] ?? [] {
                let entry = globs.entry(for: branch)
                if known.insert(entry.key).inserted { expanded.repositories.append(entry) }
            }
        }
        return expanded
    }

    /// When discovery is due again: the shortest interval among the globs' entries
    /// (`default_interval` for those without one, as for patterns: without a token a 304 costs a point).
    static func interval(of configuration: MirrorConfiguration) -> Duration? {
        configuration.branchGlobs.map { $0.interval ?? configuration.defaultInterval }.min()
    }

    /// Lists the branches of every repository with globs in `configuration` (the
    /// file's, with the repositories its patterns with `branches:` selected) and
    /// records what they select.
    /// `listed` is told every branch of each repository whose listing changed (or
    /// was read for the first time, or whose globs changed), so the branches it no
    /// longer has are confirmed gone and marked, and those still on GitHub are
    /// selected as well; when it did not settle them all, it is told again next
    /// time, and a rate limit it throws pauses discovery.
    mutating func run(
        settings: DaemonSettings, configuration: MirrorConfiguration, logger: Logger,
        listed: (MirrorConfiguration.BranchGlobs, Set<String>) async throws -> ListingCheck = { _, _ in ListingCheck(settled: true) }
    ) async -> PatternDiscovery.Ending {
        let client = settings.client.countingSeparately()
        for globs in configuration.branchGlobs {
            do {
                let firstListing = listings[globs.key] == nil
                // After a start, the listing the store kept (this daemon's before it stopped, or
                // commitsctl's) makes the first listing conditional too.
                let previous = firstListing ? await Self.keptListing(of: globs.name, in: settings.store) : listings[globs.key]
                let (listing, unchanged) = try await BranchListing.list(globs.name, previous: previous, client: client)
                listings[globs.key] = listing
                if unchanged && firstListing {
                    kept.insert(globs.key)  // the store's own, answered 304
                } else if !unchanged {
                    kept.remove(globs.key)
                }
                if !kept.contains(globs.key), await Self.keep(listing, of: globs.name, in: settings.store, logger: logger) {
                    kept.insert(globs.key)
                }
                let names = listing.branches.map(\.name)
                if !unchanged || checkedWith[globs.key] != globs.selection {
                    checkedWith[globs.key] = nil  // told again next time unless it settles them all
                    let check = try await listed(globs, Set(names))
                    checkedWith[globs.key] = check.settled ? globs.selection : nil
                    stillThere[globs.key] = check.stillThere
                }
                // Selected again even when unchanged: a reload may have changed the globs.
                var branches = globs.selection.selected(from: names)
                for branch in stillThere[globs.key] ?? [] where globs.selection.matches(branch) && !branches.contains(branch) {
                    branches.append(branch)
                }
                let before = selected[globs.key] ?? []
                selected[globs.key] = branches
                let added = branches.filter { !before.contains($0) }
                let left = before.filter { !branches.contains($0) }
                // On the first listing, the branches the file names for this repository join them:
                // whichever of its branches syncs first reads them all (a repository with history
                // stored already reads nothing: `SyncEngine.readBranchesOverGit`).
                let named = firstListing ? configuration.repositories.filter { $0.name == globs.name }.compactMap(\.branch) : []
                let heads = listing.heads
                let fresh = Dictionary(
                    (added + named).compactMap { branch in heads[branch].map { (branch, $0) } }, uniquingKeysWith: { first, _ in first })
                if !fresh.isEmpty { newBranches[globs.key] = NewBranches(repository: globs.name, heads: fresh) }
                if !added.isEmpty || !left.isEmpty {
                    logger.notice(
                        "discovered branches to mirror",
                        metadata: [
                            "repo": "\(globs.name)", "branches": "\(globs.selection)",
                            "discovery.added": "\(added.joined(separator: ","))",
                            "discovery.dropped": "\(left.joined(separator: ","))",
                        ])
                }
            } catch {
                let subject: Logger.Metadata = ["repo": "\(globs.name)"]
                let kept = "the branches its last listing selected"
                if let ending = PatternDiscovery.Ending.after(
                    error, listing: "a repository's branches", of: subject, keeping: kept, settings, logger)
                {
                    return ending
                }
            }
        }
        return .finished
    }

    /// The listing the store keeps for `repository`; none when it holds none or cannot be read (a full listing then).
    private static func keptListing(of repository: RepositoryName, in store: StoreLocation) async -> BranchListing? {
        await DedicatedThreads.store.run {
            guard let writer = try? store.openSyncWriter(), let stored = try? writer.repository(named: repository) else { return nil }
            return try? writer.branchListing(repositoryID: stored.id)
        }
    }

    /// Keeps `listing` in the store (once the repository is stored); returns whether it was kept.
    private static func keep(_ listing: BranchListing, of repository: RepositoryName, in store: StoreLocation, logger: Logger) async -> Bool
    {
        await DedicatedThreads.store.run {
            do {
                return try listing.keep(for: repository, in: store.openSyncWriter())
            } catch {
                logger.warning(
                    "the branch listing was not kept; the first listing after a restart will be a full one",
                    metadata: ["repo": "\(repository)", "error": "\(error)"])
                return false
            }
        }
    }
}
