import Foundation
import Logging
import MirrorCore
import Synchronization

extension SyncService {
    // MARK: - Push webhooks (hints for the loop)

    /// The configured repositories (patterns' included) a push is for: the
    /// same repository, matched by GitHub's id through the store first (it
    /// survives renames and transfers), else by name (current or former), and
    /// the branch they mirror (their default branch when none is named).
    static func repositories(
        pushedBy push: WebhookPush, among configured: [MirrorConfiguration.Repository], store: StoreLocation, logger: Logger
    ) -> [MirrorConfiguration.Repository] {
        var names: Set<String> = [push.repositoryName.description.lowercased()]
        var defaultBranch = push.defaultBranch
        do {
            let reader = try store.openCommitReader()
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

    /// What a push may be for in `configuration`: its repositories, and the
    /// entries its branch globs would make of the pushed branch.
    static func candidates(for push: WebhookPush, in configuration: MirrorConfiguration) -> [MirrorConfiguration.Repository] {
        let globbed = push.branch.map { branch in
            configuration.branchGlobs.filter { $0.selection.matches(branch) }.map { $0.entry(for: branch) }
        }
        return configuration.repositories + (globbed ?? [])
    }
}

/// What the webhook receiver matches a push against before it becomes a hint:
/// the configuration the plan follows (patterns and globs expanded), published
/// by the plan whenever it changes, and the store that knows former names.
final class WebhookTargets: Sendable {
    private let current = Mutex<(configuration: MirrorConfiguration, store: StoreLocation)?>(nil)

    func publish(_ configuration: MirrorConfiguration, store: StoreLocation) {
        current.withLock { $0 = (configuration, store) }
    }

    /// Whether a configured repository and branch is the one pushed to; true
    /// until the plan has published (it matches again when it takes the hint).
    func mirror(_ push: WebhookPush, logger: Logger) -> Bool {
        guard let (configuration, store) = current.withLock({ $0 }) else { return true }
        let candidates = SyncService.candidates(for: push, in: configuration)
        return !SyncService.repositories(pushedBy: push, among: candidates, store: store, logger: logger).isEmpty
    }
}
