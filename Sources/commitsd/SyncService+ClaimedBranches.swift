import Foundation
import Logging
import MirrorCore
import Synchronization

extension SyncService {
    /// The branches a claimed repository with globs mirrors, listed under the
    /// claim: each repository's branches are listed by whichever daemon holds its
    /// claim, once per claim (its interval), sent with the ETags of the listing
    /// kept in the store (`branch_listings`), so daemons sharing a database need
    /// no turn of their own to list branches. The listed heads spare each branch
    /// stored at its head a request of its own. A stored branch a changed listing
    /// lacks is confirmed gone (`GoneBranches`) before it is marked, and one still
    /// on GitHub stays mirrored. When the listing fails, the kept listing
    /// selects, and its heads are not used.
    func claimedBranches(
        _ globs: MirrorConfiguration.BranchGlobs, named: [MirrorConfiguration.Repository], claim: SyncLease,
        queue: ClaimQueue, settings: DaemonSettings, logger: Logger
    ) async -> (entries: [MirrorConfiguration.Repository], listing: BranchListing?) {
        var names: [String] = []
        var listing: BranchListing?
        do {
            let writer = try queue.with { try $0.openFencedWriter(for: claim) }
            do {
                let (listed, unchanged) = try await BranchListing.list(globs.name, client: settings.client, keptIn: writer)
                listing = listed
                names = listed.branches.map(\.name)
                if unchanged, settledListings.settled(globs) {
                    // Asked about already: the branches GitHub still had are stored, not gone.
                    names += try Self.storedBranches(of: globs, besides: Set(names), store: settings.store)
                    return Self.entries(globs, named: named, names: names, listing: listing)
                }
                settledListings.forget(globs)
                let gone = try await GoneBranches.confirmAndMark(
                    globs, listed: Set(names), store: settings.store, client: settings.client)
                if gone.isSettled { settledListings.settle(globs) }
                for branch in gone.marked {
                    logger.notice(
                        "branch gone from GitHub; its commits stay stored, and it is mirrored again if it comes back",
                        metadata: ["branch": "\(branch)"])
                }
                if !gone.stillThere.isEmpty {
                    logger.info(
                        "branches the listing lacked are still on GitHub; mirrored as they are",
                        metadata: ["branches": "\(gone.stillThere.joined(separator: ","))"])
                }
                names += gone.stillThere
                if let failure = gone.failure { throw failure }
            } catch  where listing == nil {
                logger.warning(
                    "listing the repository's branches failed; syncing those the kept listing selects",
                    metadata: ["error": "\(DaemonAdvice.line(for: error))"])
                names =
                    try writer.repository(named: globs.name).flatMap { try writer.branchListing(repositoryID: $0.id) }?
                    .branches.map(\.name) ?? []
            }
        } catch {
            logger.warning(
                "the repository's branches could not all be settled; syncing those listed",
                metadata: ["error": "\(DaemonAdvice.line(for: error))"])
        }
        return Self.entries(globs, named: named, names: names, listing: listing)
    }

    /// The entries a claim syncs: those the file names, then each branch the globs select.
    private static func entries(
        _ globs: MirrorConfiguration.BranchGlobs, named: [MirrorConfiguration.Repository], names: [String],
        listing: BranchListing?
    ) -> (entries: [MirrorConfiguration.Repository], listing: BranchListing?) {
        var entries = named
        for branch in globs.selection.selected(from: names) where !entries.contains(where: { $0.branch == branch }) {
            entries.append(globs.entry(for: branch))
        }
        return (entries, listing)
    }

    /// The stored branches of the repository the globs select, not gone and not in `listed`.
    private static func storedBranches(
        of globs: MirrorConfiguration.BranchGlobs, besides listed: Set<String>, store: StoreLocation
    ) throws -> [String] {
        try store.openCommitReader().allSyncStates().filter {
            $0.repository.lowercased() == globs.key && $0.branchGoneSince == nil && globs.selection.matches($0.branch)
                && !listed.contains($0.branch)
        }.map(\.branch)
    }
}

/// The repositories whose last changed branch listing had every missing branch
/// settled (confirmed gone and marked, or still on GitHub), with the globs it was
/// settled for: an unchanged listing (304s) then asks GitHub nothing more.
final class SettledListings: Sendable {
    private let settledWith = Mutex<[String: BranchSelection]>([:])

    func settled(_ globs: MirrorConfiguration.BranchGlobs) -> Bool {
        settledWith.withLock { $0[globs.key] == globs.selection }
    }

    func settle(_ globs: MirrorConfiguration.BranchGlobs) {
        settledWith.withLock { $0[globs.key] = globs.selection }
    }

    func forget(_ globs: MirrorConfiguration.BranchGlobs) {
        _ = settledWith.withLock { $0.removeValue(forKey: globs.key) }
    }
}
