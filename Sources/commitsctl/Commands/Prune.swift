import ArgumentParser
import Foundation
import MirrorCore
import MirrorSQLite

extension Commitsctl {
    struct Prune: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "prune",
            abstract: "Delete the commits a confirmed force-push left off every mirrored branch, after a backup.",
            discussion: """
                A sync never deletes a stored commit: when GitHub confirms a history rewrite, the commits \
                no mirrored branch reaches any more are kept and hidden from queries (query \
                --include-rewritten shows them). This command is the only way to remove them. It first \
                copies the store beside itself (<store>.backup-prune-<UTC time>, checked), then deletes them \
                from the repository, and deletes commits no repository holds any more.
                """
        )

        @OptionGroup var repository: RepositoryFilterOptions

        @OptionGroup var store: StoreOptions

        func run() async throws {
            try await reportingErrors {
                let mirror = try store.resolvedLocation.openWriter()
                reportUpgrade(of: mirror)
                let reader = try mirror.location.openReader()
                let repositoryID = try repository.resolve(in: reader).flatMap { try reader.repository(named: $0)?.id }
                let candidates = try reader.offBranchCount(repositoryID: repositoryID)
                guard candidates > 0 else {
                    print("nothing to prune: no commit is off every mirrored branch")
                    return
                }
                let stamp = ISO8601Timestamp.format(Date()).filter { $0 != "-" && $0 != ":" }
                let copy = try reader.backup(to: "\(mirror.path).backup-prune-\(stamp)")
                let removed = try mirror.pruneOffBranch(repositoryID: repositoryID)
                print("pruned \(plural(removed, "off-branch commit")); the copy made first is \(copy.path)")
            }
        }
    }
}
