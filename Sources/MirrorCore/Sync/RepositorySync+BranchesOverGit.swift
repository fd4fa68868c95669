import Foundation

extension RepositorySync {
    /// How reading several new branches over git ended (`SyncEngine.readBranchesOverGit`).
    public enum BranchesOverGitOutcome: Sendable {
        case done(SyncEngine.BranchesOverGit)
        /// Another process holds the repository's lock (`holder` as it wrote it).
        case skipped(holder: String)
        /// Nothing was recorded for any branch; the per-branch syncs meet the same error, and report it.
        case failed(Failure)
    }

    /// Reads the never-synced branches among `heads` (name → head, from the
    /// branch listing) over git in one fetch, under the repository's lock, before
    /// the per-branch syncs (`run`) that then find them unchanged. Never throws.
    public func readBranchesOverGit(_ repository: RepositoryName, heads: [String: String]) async -> BranchesOverGitOutcome {
        guard gitBootstrap != nil else { return .done(.notNeeded) }
        return await DedicatedThreads.store.run {
            await holdingLock(repository) { lock in
                do {
                    let engine = SyncEngine(
                        client: client, store: try writer(lock), logger: logger, gitBootstrap: gitBootstrap(for: repository),
                        sharesTheStore: openWriter != nil)
                    return .done(try await engine.readBranchesOverGit(repository, heads: heads))
                } catch {
                    return .failed(Failure(error: error))
                }
            }
        }
    }
}

extension RepositorySync.BranchesOverGitOutcome: RepositorySync.LockRefusal {}
