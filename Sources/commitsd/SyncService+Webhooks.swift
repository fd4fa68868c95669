import Foundation
import Logging
import MirrorCore
import MirrorSQLite

extension SyncService {
    // MARK: - Push webhooks (hints for the plan)

    /// The configured repositories (patterns' included) a push is for: the
    /// same repository, matched by GitHub's id through the store first (it
    /// survives renames and transfers), else by name (current or former), and
    /// the branch they mirror (their default branch when none is named).
    func repositories(
        pushedBy push: WebhookPush, among configured: [MirrorConfiguration.Repository], settings: DaemonSettings, logger: Logger
    ) -> [MirrorConfiguration.Repository] {
        var names: Set<String> = [push.repositoryName.description.lowercased()]
        var defaultBranch = push.defaultBranch
        do {
            let reader = try settings.store.openReader()
            let stored = try reader.repositories()
            let same =
                stored.first { push.repositoryID != nil && $0.githubID == push.repositoryID }
                ?? stored.first { $0.name.description.lowercased() == push.repositoryName.description.lowercased() }
            if let same {
                names.insert(same.name.description.lowercased())
                for former in try reader.formerNames(of: same.id) { names.insert(former.lowercased()) }
                defaultBranch = same.defaultBranch ?? defaultBranch
            }
        } catch {
            logger.debug("could not read the store to match a push; matching by name", metadata: ["error": "\(error)"])
        }
        return configured.filter { repository in
            guard names.contains(repository.name.description.lowercased()) else { return false }
            // An unknown default branch: a poll too many costs one 304, a missed push a whole interval.
            guard let branch = repository.branch ?? defaultBranch else { return true }
            return branch == push.branch
        }
    }
}
