import Foundation

/// What a sync records of a repository's pull requests (`SyncStore` refines it).
public protocol PullRequestRecords: AnyObject {
    /// Records pull requests as listed, in one write: a new number is added, a known one whose
    /// listing differs is updated in place (a pull request is GitHub's to edit), one listed the
    /// same is left alone. Nothing is deleted.
    func recordPullRequests(_ pullRequests: [PullRequest], repositoryID: Int64) throws -> PullRequestChanges
    /// Ends a listing: `etag` (of its first page) is kept for the next to be asked for
    /// conditionally, and `updatedThrough`, the newest update it read, for the next to stop at.
    func recordPullRequestListing(repositoryID: Int64, etag: String?, updatedThrough: String?, at date: Date) throws
    /// Notes that the listing was asked for at `date` and GitHub answered that it had not changed.
    func recordPullRequestListingUnchanged(repositoryID: Int64, at date: Date) throws
    /// The repository's last listing, as `recordPullRequestListing` left it.
    func pullRequestListing(repositoryID: Int64) throws -> StoredPullRequestListing
}

/// What the store holds of a repository's last pull request listing.
public struct StoredPullRequestListing: Sendable, Equatable {
    /// The ETag of the listing's first page (nil before the first listing).
    public var etag: String?
    /// The newest `updated_at` of every pull request stored (nil before the first listing).
    public var updatedThrough: String?
    /// When the listing was last asked for (ISO 8601; nil before the first).
    public var listedAt: String?

    public init(etag: String? = nil, updatedThrough: String? = nil, listedAt: String? = nil) {
        self.etag = etag
        self.updatedThrough = updatedThrough
        self.listedAt = listedAt
    }
}

/// What `show`, `query --pr` and `status` ask of a store's pull requests (`MirrorReading` refines it).
public protocol PullRequestReading: AnyObject {
    /// The pull requests of one repository, or of every one, by repository name then number.
    func pullRequests(repositoryID: Int64?) throws -> [RepositoryPullRequest]
    /// The repository's pull request numbered `number`, if it is stored.
    func pullRequest(_ number: Int, repositoryID: Int64) throws -> RepositoryPullRequest?
    /// The pull requests, of every repository holding the commit `sha`, that it is the merge
    /// commit of or the head of; by repository name then number.
    func pullRequests(involving sha: String) throws -> [RepositoryPullRequest]
    /// Per repository (by its full name) with pull requests, how many it has, as `status` shows them.
    func pullRequestCounts() throws -> [String: Int]
}
