import Foundation

// Repositories as a store records them, whichever backend stores them: values
// mapped once at the store's boundary, so the core never sees a row.

/// A mirrored repository: the store's id for it, its current name, and what GitHub said of it.
public struct StoredRepository: Sendable, Equatable {
    public var id: Int64
    /// The current name (GitHub's `full_name` at the last lookup).
    public var name: RepositoryName
    /// `nil` until GitHub has been asked (a store filled by `import` only).
    public var githubID: Int?
    public var defaultBranch: String?

    public init(id: Int64, name: RepositoryName, githubID: Int?, defaultBranch: String?) {
        self.id = id
        self.name = name
        self.githubID = githubID
        self.defaultBranch = defaultBranch
    }
}

/// What GitHub says a repository is, as recorded by `adopt`.
public struct RepositoryIdentity: Sendable, Equatable {
    public var githubID: Int
    public var fullName: RepositoryName
    public var defaultBranch: String
    public var htmlURL: String?

    public init(githubID: Int, fullName: RepositoryName, defaultBranch: String, htmlURL: String?) {
        self.githubID = githubID
        self.fullName = fullName
        self.defaultBranch = defaultBranch
        self.htmlURL = htmlURL
    }
}

/// A repository selected by a listing, as `recordListing` left it.
public struct SelectedRepository: Sendable, Equatable {
    public var repository: StoredRepository
    public var state: RepositoryState
    /// It was gone and is back.
    public var returned: Bool
}

/// What `HistoryRemoval.removeAndPurge` deleted.
public struct PurgeOutcome: Sendable, Equatable {
    /// Commits deleted: no other repository held them.
    public var deleted: Int
    /// Commits it held that other repositories hold too: kept for them.
    public var shared: Int

    public init(deleted: Int, shared: Int) {
        self.deleted = deleted
        self.shared = shared
    }

    /// Of the `held` commits, those not `deleted` stayed because another repository holds them.
    public init(held: Int, deleted: Int) {
        self.init(deleted: deleted, shared: held - deleted)
    }
}

/// What a store holds about a repository with a GitHub id, as an owner listing compares it.
public struct StoredIdentity: Sendable {
    public var id: Int64
    /// `nil` when the stored row lacks what an identity needs (a name that does not parse, no default branch).
    public var identity: RepositoryIdentity?
    public var state: RepositoryState

    public init(id: Int64, identity: RepositoryIdentity?, state: RepositoryState) {
        self.id = id
        self.identity = identity
        self.state = state
    }
}

extension SelectedRepository {
    /// The rule of `RepositoryCatalogue.recordListing` for one listed repository, whichever
    /// store applies it: unchanged since stored (the common case), nothing is written;
    /// otherwise the store adopts it (`adopt`: the row and its state). A gone one is made
    /// active again (`reactivate`); a removed one stays removed.
    public static func select(
        _ identity: RepositoryIdentity, stored: StoredIdentity?,
        adopt: () throws -> (StoredRepository, RepositoryState), reactivate: (Int64) throws -> Void
    ) rethrows -> SelectedRepository {
        let repository: StoredRepository
        let state: RepositoryState
        if let stored, stored.identity == identity {
            repository = StoredRepository(
                id: stored.id, name: identity.fullName, githubID: identity.githubID, defaultBranch: identity.defaultBranch)
            state = stored.state
        } else {
            (repository, state) = try adopt()
        }
        guard state == .gone else { return SelectedRepository(repository: repository, state: state, returned: false) }
        try reactivate(repository.id)
        return SelectedRepository(repository: repository, state: .active, returned: true)
    }
}
