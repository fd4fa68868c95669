import Foundation

/// The repositories a store records, as every part that names one needs
/// them: a repository is its GitHub id; any name it was known by finds it.
public protocol RepositoryRecords: AnyObject {
    func repository(named name: RepositoryName) throws -> StoredRepository?
    func repositoryState(repositoryID: Int64) throws -> RepositoryState
    /// Sets the repository's state with why; its history is never touched.
    func setState(_ state: RepositoryState, repositoryID: Int64, reason: String?, at date: Date) throws
    /// Records what GitHub says the repository is (a rename keeps its row, found by its GitHub id).
    func adopt(_ identity: RepositoryIdentity, requestedAs requested: RepositoryName) throws -> StoredRepository
}

/// What discovering an owner's repositories (`RepositoryDiscovery`) needs of a
/// store: the owner's last listing, and recording a new one atomically with
/// the identities it selects.
public protocol RepositoryCatalogue: RepositoryRecords {
    func ownerListing(owner: String) throws -> OwnerListing?
    func recordListing(_ listing: OwnerListing, selected identities: [RepositoryIdentity], at date: Date) throws
        -> [SelectedRepository]
    func activeRepositories(ownedBy owner: String) throws -> [StoredRepository]
    func namesByGitHubID() throws -> [Int: RepositoryName]
}

/// Where the requests a token spent are counted (`RequestLedger`).
public protocol RequestRecords: AnyObject {
    func recordRequests(_ tallies: [RequestKind: RequestTally], token: String, at date: Date) throws
}

extension RepositoryRecords {
    public func setState(_ state: RepositoryState, repositoryID: Int64, reason: String?) throws {
        try setState(state, repositoryID: repositoryID, reason: reason, at: Date())
    }
}

extension RepositoryCatalogue {
    public func recordListing(_ listing: OwnerListing, selected identities: [RepositoryIdentity]) throws -> [SelectedRepository] {
        try recordListing(listing, selected: identities, at: Date())
    }
}

extension RequestRecords {
    public func recordRequests(_ tallies: [RequestKind: RequestTally], token: String) throws {
        try recordRequests(tallies, token: token, at: Date())
    }
}
