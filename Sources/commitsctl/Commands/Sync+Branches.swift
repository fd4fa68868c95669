import Foundation
import MirrorCore

/// `--branch GLOB` and `--all-branches`: the repository's branches are listed
/// once (`BranchListing`, one request per 100 branches) and each matching one
/// becomes a target of its own, in name order, after the names given exactly.
extension Commitsctl.Sync {
    /// The branches `--branch` and `--all-branches` select, `nil` when they name every branch exactly.
    var branchSelection: BranchSelection? {
        if allBranches { return .every }
        let patterns = branch.compactMap(BranchPattern.init(parsing:))
        return patterns.contains(where: \.isGlob) ? BranchSelection(patterns) : nil
    }

    /// One target per selected branch of `name`; none matching is an error naming the patterns.
    /// The never-synced ones are read over git in one fetch first (`readNewBranchesOverGit`).
    /// A stored branch the globs select that the listing lacks is settled as the
    /// configuration's globs settle it (`settleUnlistedBranches`): marked gone once GitHub
    /// confirms it, synced in this run while GitHub still has it.
    func branchTargets(
        _ name: RepositoryName, _ selection: BranchSelection, client: GitHubClient, store: StoreLocation,
        sync: RepositorySync, listings: inout BranchListings
    ) async throws -> [MirrorConfiguration.Repository] {
        let listing = try await listings.list(name, client: client)
        let listed = listing.branches.map(\.name)
        let globs = MirrorConfiguration.BranchGlobs(name: name, selection: BranchSelection(selection.patterns.filter(\.isGlob)))
        let settled = try await settleUnlistedBranches(globs, listed: listed, store: store, client: client)
        if let failure = settled.failure { throw failure }
        // An empty repository has no branches: every branch of it is its default one, synced as
        // without --all-branches (recorded as empty, found when its first push comes).
        if listed.isEmpty, selection == .every { return [MirrorConfiguration.Repository(name: name)] }
        var branches = selection.names
        for branch in selection.selected(from: listed) + settled.stillThere where !branches.contains(branch) {
            branches.append(branch)
        }
        guard !branches.isEmpty else { throw NoBranchMatches(repository: name, selection: selection, listed: listed.count) }
        await readNewBranchesOverGit(name, branches, listing, sync)
        return branches.map { MirrorConfiguration.Repository(name: name, branch: $0) }
    }

    /// Reads those of `branches` never synced over git in one fetch, at the heads
    /// `listing` names, so that each one's own sync after it finds its head
    /// unchanged. One line when it did; what failed is left to those syncs to report.
    func readNewBranchesOverGit(
        _ name: RepositoryName, _ branches: [String], _ listing: BranchListing, _ sync: RepositorySync
    ) async {
        let listedHeads = listing.heads
        let heads = Dictionary(branches.compactMap { branch in listedHeads[branch].map { (branch, $0) } }, uniquingKeysWith: { a, _ in a })
        switch await sync.readBranchesOverGit(name, heads: heads) {
        case .done(.stored(let stored, let added, let gitRequests, _)):
            print(
                "\(name): \(plural(stored.count, "branch", "branches")) read over git in one fetch, \(added) new, \(plural(gitRequests, "git request"))"
            )
        case .done(.unavailable(let reason)):
            printWarning("\(name): its new branches were not read over git (\(reason)); each is listed over REST")
        case .done(.notNeeded), .skipped, .failed:
            break
        }
    }

    /// The branches the configuration's globs select (`branches: ["release/*"]`), each
    /// repository's branches listed once, added to `targets` after what the file names.
    /// A stored branch a glob selects that the listing no longer has is marked gone
    /// (its history kept) once GitHub confirms it (`GoneBranches`), and synced in
    /// this run when GitHub says it is still there. A listing or a confirmation
    /// that fails is counted, and the others go on.
    func discoverBranches(
        _ globs: [MirrorConfiguration.BranchGlobs], client: GitHubClient, store: StoreLocation, sync: RepositorySync,
        into targets: inout [MirrorConfiguration.Repository], listings: inout BranchListings, tally: inout Tally
    ) async {
        var known = Set(targets.map(\.key))
        for entry in globs {
            do {
                let listing = try await listings.list(entry.name, client: client)
                let listed = listing.branches.map(\.name)
                let selected = entry.selection.selected(from: listed)
                await readNewBranchesOverGit(entry.name, selected, listing, sync)
                for branch in selected where known.insert(entry.entry(for: branch).key).inserted {
                    targets.append(MirrorConfiguration.Repository(name: entry.name, branch: branch))
                }
                let gone = try await settleUnlistedBranches(entry, listed: listed, store: store, client: client)
                for branch in gone.stillThere where known.insert(entry.entry(for: branch).key).inserted {
                    targets.append(MirrorConfiguration.Repository(name: entry.name, branch: branch))
                }
                if let failure = gone.failure { throw failure }
            } catch is CancellationError {
                tally.interrupted = true
                tally.stop = true
                return
            } catch let error as GitHubError where error.isRateLimit {
                printError("\(entry): \(Advice.line(for: error))")
                tally.tryLater += 1
                tally.stop = true
                return
            } catch let error as GitHubAppError {
                tally.stopForCredentials(error, of: entry.description)
                return
            } catch {
                printError("\(entry): \(Advice.line(for: error))")
                tally.failed += 1
            }
        }
    }
}

extension Commitsctl.Sync {
    /// Confirms and marks gone the stored branches `globs` select that `listed` lacks
    /// (`GoneBranches`, the rule commitsd follows too), one warning per branch marked.
    /// The caller syncs the outcome's `stillThere` and reports its `failure`.
    func settleUnlistedBranches(
        _ globs: MirrorConfiguration.BranchGlobs, listed: [String], store: StoreLocation, client: GitHubClient
    ) async throws -> GoneBranches.Outcome {
        let gone = try await GoneBranches.confirmAndMark(globs, listed: Set(listed), store: store, client: client)
        for branch in gone.marked { printWarning("\(globs.name)@\(branch) is gone from GitHub; its history is kept") }
        return gone
    }
}

/// A glob that selects no branch of the repository: nothing to mirror.
struct NoBranchMatches: Error, CustomStringConvertible {
    var repository: RepositoryName
    var selection: BranchSelection
    var listed: Int

    var description: String {
        "no branch of \(repository) matches \(selection.patterns.map { BranchName.quoted($0.text) }.joined(separator: ", ")) (\(plural(listed, "branch", "branches")) listed); check --branch"
    }
}

/// The branch listings one run makes, each sent with the ETags of the listing
/// the store kept for its repository (so an unchanged one answers 304s), and
/// kept in turn once the run's syncs are done (a repository's first sync
/// is what records it in the store). The heads they name spare each branch
/// stored at that head its own request (`SyncEngine.sync(listedHead:)`).
struct BranchListings {
    let store: any MirrorWriter
    private(set) var listings: [(name: RepositoryName, listing: BranchListing)] = []

    init(store: any MirrorWriter) { self.store = store }

    mutating func list(_ name: RepositoryName, client: GitHubClient) async throws -> BranchListing {
        let listing = try await BranchListing.list(name, client: client, keptIn: store).listing
        listings.append((name, listing))
        return listing
    }

    /// The head the run's listing of the target's repository names for its branch.
    func listedHead(of target: MirrorConfiguration.Repository) -> String? {
        guard let branch = target.branch else { return nil }
        return listings.last(where: { $0.name == target.name })?.listing.heads[branch]
    }

    /// Keeps every listing made; one that cannot be kept costs the next run a full listing, no more.
    func keep() {
        for (name, listing) in listings {
            do { try listing.keep(for: name, in: store) } catch {
                printWarning("\(name): its branch listing was not kept (\(error)); the next run lists its branches in full")
            }
        }
    }
}
