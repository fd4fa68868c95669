import Foundation
import Logging
import MirrorCore

extension SyncService {
    /// The branches a claimed repository with globs mirrors, listed under the
    /// claim: on a shared database each repository's branches are listed by
    /// whichever daemon holds its claim, once per claim (its interval), sent with
    /// the ETags of the listing kept in the store (`branch_listings`), so the
    /// daemons need no turn of their own to list branches. The listed heads spare
    /// each branch stored at its head a request of its own. A stored branch the
    /// listing lacks is confirmed gone (`GoneBranches`) before it is marked. When
    /// the listing fails, the kept listing selects, and its heads are not used.
    func claimedBranches(
        _ globs: MirrorConfiguration.BranchGlobs, named: [MirrorConfiguration.Repository], claim: SyncLease,
        queue: ClaimQueue, settings: DaemonSettings, logger: Logger
    ) async -> (entries: [MirrorConfiguration.Repository], listing: BranchListing?) {
        var names: [String] = []
        var listing: BranchListing?
        do {
            let writer = try queue.with { try $0.openFencedWriter(for: claim) }
            do {
                let listed = try await BranchListing.list(globs.name, client: settings.client, keptIn: writer).listing
                listing = listed
                names = listed.branches.map(\.name)
                let gone = try await GoneBranches.confirmAndMark(
                    globs, listed: Set(names), store: settings.store, client: settings.client)
                for branch in gone.marked {
                    logger.notice("branch gone from GitHub; its commits stay stored", metadata: ["branch": "\(branch)"])
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
        var entries = named
        for branch in globs.selection.selected(from: names) where !entries.contains(where: { $0.branch == branch }) {
            entries.append(globs.entry(for: branch))
        }
        return (entries, listing)
    }
}
