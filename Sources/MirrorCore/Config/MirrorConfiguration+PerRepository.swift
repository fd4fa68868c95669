// What each repository's own entries, else the patterns selecting it, else the file say of it.

extension MirrorConfiguration {
    /// Which tags syncs of `repository`'s default branch record: its own
    /// entries' `tags:`, else that of the first pattern selecting it that sets one, else the file's.
    public func tagSelection(for repository: RepositoryName) -> TagSelection {
        if let own = repositoryTags[repository.description.lowercased()] { return own }
        return patterns.first { $0.tags != nil && $0.pattern.matches(repository) }?.tags ?? tags
    }

    /// Whether `repository` is read with its trees and its paths stored: its own
    /// entries' `paths:`, else that of the first pattern selecting it that sets one, else the file's.
    public func readsPaths(of repository: RepositoryName) -> Bool {
        if let own = repositoryPaths[repository.description.lowercased()] { return own }
        return patterns.first { $0.paths != nil && $0.pattern.matches(repository) }?.paths ?? paths
    }

    /// Whether syncs of `repository`'s default branch record its pull requests: its own
    /// entries' `pull_requests:`, else that of the first pattern selecting it that sets one, else the file's.
    public func readsPullRequests(of repository: RepositoryName) -> Bool {
        if let own = repositoryPullRequests[repository.description.lowercased()] { return own }
        return patterns.first { $0.pullRequests != nil && $0.pattern.matches(repository) }?.pullRequests ?? pullRequests
    }
}
