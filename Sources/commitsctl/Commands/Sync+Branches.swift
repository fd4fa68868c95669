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
    func branchTargets(
        _ name: RepositoryName, _ selection: BranchSelection, client: GitHubClient
    ) async throws -> [MirrorConfiguration.Repository] {
        let (listing, _) = try await BranchListing.list(name, previous: nil, client: client)
        let listed = listing.branches.map(\.name)
        // An empty repository has no branches: every branch of it is its default one, synced as
        // without --all-branches (recorded as empty, found when its first push comes).
        if listed.isEmpty, selection == .every { return [MirrorConfiguration.Repository(name: name)] }
        var branches = selection.names
        for branch in selection.selected(from: listed) where !branches.contains(branch) { branches.append(branch) }
        guard !branches.isEmpty else { throw NoBranchMatches(repository: name, selection: selection, listed: listed.count) }
        return branches.map { MirrorConfiguration.Repository(name: name, branch: $0) }
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
