import ArgumentParser
import MirrorCore

/// `query --branch NAME`: the union of what the mirrored branches it names
/// reach (`branch_commits`), each commit once.
extension Commitsctl.Query {
    /// The branches `--branch` selects; `nil` without it.
    var branchSelection: BranchSelection? {
        branch.isEmpty ? nil : BranchSelection(branch.compactMap(BranchPattern.init(parsing:)))
    }

    func validateBranches() throws {
        for text in branch where BranchPattern(parsing: text) == nil {
            throw ValidationError("--branch \(BranchName.quoted(text)) is not a branch name; expected \(BranchPattern.expectedForm)")
        }
        if follow && !branch.isEmpty {
            // Arrival numbers are per repository: a branch moving onto stored commits gives none.
            throw ValidationError("--follow cannot be combined with --branch yet; follow the repository with --repo instead")
        }
    }

    /// A name no mirrored branch has is an error, not an empty answer (a typo, or a branch never synced).
    func checkBranchesMirrored(in mirror: any MirrorReading) throws {
        guard let selection = branchSelection else { return }
        let repositoryID = try repository.name.flatMap { try mirror.repository(named: $0)?.id }
        let mirrored = try mirror.syncStates(repositoryID: repositoryID).map(\.branch)
        guard mirrored.contains(where: selection.matches) else {
            throw UnmirroredBranchError(patterns: branch, repository: repository.name, store: mirror.location)
        }
    }
}

struct UnmirroredBranchError: Error, CustomStringConvertible {
    let patterns: [String]
    let repository: RepositoryName?
    let store: StoreLocation

    var description: String {
        let names = patterns.map(BranchName.quoted).joined(separator: ", ")
        let scope = repository.map { " of \($0)" } ?? ""
        return "no mirrored branch\(scope) in the store \(store) matches \(names); `commitsctl status` lists the mirrored branches"
    }
}
