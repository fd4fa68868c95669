// What changes a branch in the simulator, and the webhooks GitHub would deliver for it.

extension SimulatorCore {
    /// Moves a head (`HostedRepository.moveHead`) and, when it moved, delivers
    /// the `push` GitHub would send. Returns the new head's sha.
    func moveHead(owner: String, name: String, by steps: Int) throws -> String {
        let repository = try repository(owner: owner, name: name)
        let before = repository.graph.flatMap { graph in repository.snapshot.head.map { graph.sha(of: $0) } }
        let after = try repository.moveHead(by: steps)
        if after != before { webhooks.pushed(repository, branch: repository.defaultBranch, before: before, after: after) }
        return after
    }

    /// Points a branch other than the default at `sha` (`HostedRepository.setBranch`) and
    /// delivers what GitHub would. Returns the sha.
    func setBranch(owner: String, name: String, branch: String, to sha: String) throws -> String {
        let repository = try repository(owner: owner, name: name)
        return announce(try repository.setBranch(branch, to: sha), of: branch, in: repository)
    }

    /// Moves a branch other than the default (`HostedRepository.moveBranch`) and delivers
    /// what GitHub would. Returns its new head.
    func moveBranch(owner: String, name: String, branch: String, by steps: Int) throws -> String {
        let repository = try repository(owner: owner, name: name)
        return announce(try repository.moveBranch(branch, by: steps), of: branch, in: repository)
    }

    /// Deletes a branch and delivers a `push` that deletes it and a `delete`.
    func deleteBranch(owner: String, name: String, branch: String) throws {
        let repository = try repository(owner: owner, name: name)
        let before = try repository.deleteBranch(branch)
        webhooks.pushed(repository, branch: branch, before: before, after: nil)
        webhooks.branchEvent("delete", repository, branch: branch)
    }

    /// Renames the default branch (GitHub's branch rename): the same head under `branch`.
    func renameDefaultBranch(owner: String, name: String, to branch: String) throws {
        try repository(owner: owner, name: name).renameDefaultBranch(to: branch)
    }

    /// A `push` when the branch moved, and a `create` when it is new.
    private func announce(_ move: HostedRepository.BranchMove, of branch: String, in repository: HostedRepository) -> String {
        if move.before != move.after { webhooks.pushed(repository, branch: branch, before: move.before, after: move.after) }
        if move.before == nil { webhooks.branchEvent("create", repository, branch: branch) }
        return move.after
    }
}
