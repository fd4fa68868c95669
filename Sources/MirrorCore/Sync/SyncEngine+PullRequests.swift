import Foundation
import Logging

/// A repository's pull requests, read once per sync of its default branch:
/// listed by update, newest first, the first page conditional (a free 304 when
/// nothing changed) and the listing stopped at the first pull request already
/// stored as it is (docs/SYNC.md, "Pull requests").
extension SyncEngine {
    /// Pages a listing may run to before it is refused as endless.
    public static let maximumPullRequestPages = 2_000

    /// Records what changed among `name`'s pull requests since the last listing; nil when
    /// GitHub answered that nothing did. A listing is read whole before anything of it
    /// is stored, so one that loops or runs past its limit changes nothing.
    /// - Throws: `GitHubError`, or `PullRequestListingError` for a listing that cannot be right.
    public func syncPullRequests(_ name: RepositoryName) async throws -> PullRequestChanges? {
        guard name.isGitHubName, let repository = try store.repository(named: name) else { return nil }
        let stored = try store.pullRequestListing(repositoryID: repository.id)
        let requestsBefore = client.usage.requests
        guard let listing = try await listPullRequests(name, since: stored) else {
            try store.recordPullRequestListingUnchanged(repositoryID: repository.id, at: Date())
            return nil
        }
        var logger = self.logger
        logger[metadataKey: "repo"] = "\(name)"
        if listing.skipped > 0 {
            logger.warning("pull requests not recorded: unreadable", metadata: ["pulls.skipped": "\(listing.skipped)"])
        }
        let changes = try store.recordPullRequests(listing.pullRequests, repositoryID: repository.id)
        if !changes.mergesNotHeld.isEmpty {
            logger.warning(
                "pull requests merged as commits the mirrored history does not hold; not linked",
                metadata: ["pulls.numbers": "\(changes.mergesNotHeld.map(String.init).joined(separator: ","))"])
        }
        let newest = ([stored.updatedThrough] + listing.pullRequests.map(\.updatedAt)).compactMap { $0 }.max()
        try store.recordPullRequestListing(repositoryID: repository.id, etag: listing.etag, updatedThrough: newest, at: Date())
        if !changes.isEmpty {
            logger.info(
                "pull requests recorded",
                metadata: [
                    "pulls.added": "\(changes.added)", "pulls.updated": "\(changes.updated)",
                    "pulls.requests": "\(client.usage.requests - requestsBefore)",
                ])
        }
        return changes
    }

    private struct PullRequestListing {
        var pullRequests: [PullRequest] = []
        var skipped = 0
        var etag: String?
    }

    /// The pull requests updated since `stored` was listed, every page read; nil for a 304.
    private func listPullRequests(_ name: RepositoryName, since stored: StoredPullRequestListing) async throws
        -> PullRequestListing?
    {
        var listing = PullRequestListing()
        var url: String? = client.pullRequestsURL(name)
        var visited = Set<String>()
        while let page = url {
            guard visited.insert(page).inserted else { throw PullRequestListingError.loops(repository: name) }
            guard visited.count <= Self.maximumPullRequestPages else {
                throw PullRequestListingError.tooLong(repository: name, pages: Self.maximumPullRequestPages)
            }
            let isFirst = visited.count == 1
            switch try await client.pullRequestsPage(url: page, repository: name, etag: isFirst ? stored.etag : nil) {
            case .notModified:
                // Only the first page is asked for conditionally; a 304 to another is a server's fault.
                guard isFirst else { throw PullRequestListingError.unasked(repository: name) }
                return nil
            case .listed(let pullRequests, let skipped, let etag, let next):
                if isFirst { listing.etag = etag }
                listing.skipped += skipped
                // Newest update first: one older than every update stored ends what is new.
                let fresh = pullRequests.filter { pull in stored.updatedThrough.map { pull.updatedAt >= $0 } ?? true }
                listing.pullRequests += fresh
                url = fresh.count < pullRequests.count ? nil : next
            }
        }
        return listing
    }
}

/// A pull request listing that cannot be right, so nothing of it is recorded.
public enum PullRequestListingError: Error, Equatable, CustomStringConvertible {
    /// A `next` link named a page already read.
    case loops(repository: RepositoryName)
    /// More pages than `SyncEngine.maximumPullRequestPages`.
    case tooLong(repository: RepositoryName, pages: Int)
    /// A 304 to a page not asked for conditionally.
    case unasked(repository: RepositoryName)

    public var description: String {
        switch self {
        case .loops(let repository):
            "the pull request listing of \(repository) loops back to a page it already gave; nothing of it was recorded"
        case .tooLong(let repository, let pages):
            "the pull request listing of \(repository) runs past \(pages) pages; nothing of it was recorded"
        case .unasked(let repository):
            "GitHub answered 304 for a pull request page of \(repository) that was not asked for conditionally; nothing of the listing was recorded"
        }
    }
}
