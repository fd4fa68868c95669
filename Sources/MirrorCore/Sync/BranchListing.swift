import MirrorModel

extension BranchListing {
    /// Lists `repository`'s branches, conditionally against the listing `store`
    /// keeps for it (none for a repository never synced).
    public static func list(
        _ repository: RepositoryName, client: GitHubClient, keptIn store: any BranchListingRecords
    ) async throws -> (listing: BranchListing, unchanged: Bool) {
        let previous = try store.repository(named: repository).flatMap { try store.branchListing(repositoryID: $0.id) }
        return try await list(repository, previous: previous, client: client)
    }

    /// The most pages a listing is followed for: 200,000 branches.
    static let maximumPages = 2_000
    static let pageSize = 100

    /// Every page of `repository`'s branches, each sent with the ETag `previous`
    /// had for it: an unchanged listing is all 304s (0 points when authenticated)
    /// and `unchanged`. Links are followed only on the API's origin, never twice,
    /// and an empty page ends the listing. A listing that contradicts itself (a
    /// name twice, a name git would refuse, a head that is no sha) is refused whole.
    public static func list(
        _ repository: RepositoryName, previous: BranchListing?, client: GitHubClient
    ) async throws -> (listing: BranchListing, unchanged: Bool) {
        let origin = APIOrigin(url: client.configuration.apiURL)
        var url = client.branchesURL(repository)
        var pages: [Page] = []
        var visited: Set<String> = []
        var names: Set<String> = []
        var allNotModified = true
        while true {
            try Task.checkCancellation()
            guard visited.insert(url).inserted else { throw GitHubError.paginationLoop(url: APIOrigin.displayable(url)) }
            guard pages.count < maximumPages else {
                throw BranchListingError.inconsistent(repository: repository, detail: "it went on past \(maximumPages) pages")
            }
            let cached = previous.flatMap { previous in
                pages.count < previous.pages.count && previous.pages[pages.count].url == url ? previous.pages[pages.count] : nil
            }
            let page: Page
            switch try await client.branchesPage(url: url, repository: repository, etag: cached?.etag) {
            case .notModified:
                // Only an ETag we have a page for is sent: a 304 to anything else is the server's mistake.
                guard let cached else {
                    throw BranchListingError.inconsistent(repository: repository, detail: "a 304 for a page never listed")
                }
                page = cached
            case .listed(let branches, let etag, let next):
                allNotModified = false
                try check(branches, of: repository)
                var resolved: String?
                switch ListingNextPage(next: next, of: url, pageIsEmpty: branches.isEmpty, origin: origin) {
                case .end: resolved = nil
                case .at(let target): resolved = target
                case .refused(let link, let origin):
                    throw BranchListingError.linkRefused(repository: repository, link: link, origin: origin)
                }
                page = Page(url: url, etag: etag, next: resolved, branches: branches)
            }
            for branch in page.branches where !names.insert(branch.name).inserted {
                throw BranchListingError.inconsistent(repository: repository, detail: "it lists \(BranchName.quoted(branch.name)) twice")
            }
            pages.append(page)
            guard let next = page.next else { break }
            url = next
        }
        let unchanged = allNotModified && pages.count == previous?.pages.count
        return (BranchListing(pages: pages), unchanged)
    }

    private static func check(_ branches: [GitHubClient.ListedBranch], of repository: RepositoryName) throws {
        guard branches.count <= pageSize else {
            throw BranchListingError.inconsistent(
                repository: repository, detail: "a page of \(branches.count) branches, more than the \(pageSize) asked for")
        }
        for branch in branches {
            if let problem = BranchName.problem(with: branch.name) {
                throw BranchListingError.inconsistent(
                    repository: repository, detail: "it lists \(BranchName.quoted(branch.name)), not a branch name: \(problem)")
            }
            let isSHA =
                branch.head.utf8.count == 40 && branch.head.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
            guard isSHA else {
                throw BranchListingError.inconsistent(
                    repository: repository,
                    detail: "the head of \(BranchName.quoted(branch.name)), \(BranchName.quoted(branch.head)), is not a commit sha")
            }
        }
    }
}

/// What a branch listing refused to believe: nothing is changed by it.
public enum BranchListingError: Error, Sendable, Equatable, CustomStringConvertible {
    case inconsistent(repository: RepositoryName, detail: String)
    /// A `Link: rel="next"` that leaves the API's origin.
    case linkRefused(repository: RepositoryName, link: String, origin: String)

    public var description: String {
        switch self {
        case .inconsistent(let repository, let detail):
            "\(repository)'s branch listing is inconsistent (\(detail)); nothing stored was changed"
        case .linkRefused(let repository, let link, let origin):
            "\(repository)'s branch listing: the next-page link '\(link)' leaves \(origin); it was not followed, and nothing stored was changed"
        }
    }
}
