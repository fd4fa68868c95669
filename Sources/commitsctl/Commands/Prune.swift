import ArgumentParser
import Foundation
import MirrorCore

extension Commitsctl {
    struct Prune: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "prune",
            _superCommandName: Commitsctl.name,
            abstract: "Delete the commits a confirmed force-push left off every mirrored branch, after a backup.",
            discussion: """
                A sync never deletes a stored commit: when GitHub confirms a history rewrite, the commits \
                no mirrored branch reaches any more are kept and hidden from queries (query \
                --include-rewritten shows them). This command is the only way to remove them. It first \
                writes a checked copy of the whole store — beside an SQLite store \
                (<store>.backup-prune-<UTC time>); for a PostgreSQL store, a new SQLite file in the current \
                directory (<database>.backup-prune-<UTC time>.sqlite) — then deletes them from the \
                repository, and deletes commits no repository holds any more, in one transaction.
                """
        )

        @OptionGroup var repository: RepositoryFilterOptions

        @OptionGroup var store: StoreOptions

        func run() async throws {
            try reportingErrors {
                let location = try store.resolvedLocation
                let mirror = try location.openSyncWriter()
                reportUpgrade(of: mirror)
                let repositoryID = try repository.resolve(in: location.openCommitReader())
                    .flatMap { try mirror.repository(named: $0)?.id }
                let candidates = try mirror.offBranchCount(repositoryID: repositoryID)
                guard candidates > 0 else {
                    print("nothing to prune: no commit is off every mirrored branch")
                    return
                }
                let copy = try location.safetyCopy(before: "prune")
                let removed = try mirror.pruneOffBranch(repositoryID: repositoryID)
                print("pruned \(plural(removed, "off-branch commit")); the copy made first is \(copy.path)")
            }
        }
    }
}
