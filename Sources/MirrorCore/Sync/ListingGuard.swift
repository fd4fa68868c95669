/// What one listing has seen so far, to refuse a page that contradicts it: a
/// listing repeats nothing (no URL, no page, no more stored commits than the
/// store holds) and starts where it was pinned.
struct ListingGuard {
    /// The sha the first page must start with, until the first page is read.
    private var pinnedTo: String?
    private(set) var visited: Set<String>
    private var firstSHAs: Set<String> = []
    private(set) var pagesRead = 0
    private var staleElements = 0
    private let staleBound: Int

    init(startingAt url: String, pinnedTo: String?, storedBefore: Int, pageSize: Int) {
        self.pinnedTo = pinnedTo
        self.visited = [url]
        self.staleBound = storedBefore + 2 * pageSize
    }

    /// Counts `page` as read; what is wrong with it, if anything.
    mutating func read(_ page: GitHubClient.CommitsPage) -> String? {
        pagesRead += 1
        if let sha = pinnedTo {
            guard let top = page.commits.first?.sha else { return "the listing of \(sha) was empty" }
            guard top == sha else { return "the listing of \(sha) starts with \(top) instead" }
            pinnedTo = nil
        }
        if let top = page.commits.first?.sha, !firstSHAs.insert(top).inserted {
            return "page \(pagesRead) of a listing repeats an earlier page (is the server ignoring page=?)"
        }
        if let last = page.lastPageNumber, pagesRead > last + 1 {
            return "the listing went on past its last page (\(last))"
        }
        return nil
    }

    /// Records the URL of the next page, refusing one already visited.
    mutating func follow(_ next: String?) throws {
        if let next, !visited.insert(next).inserted {
            throw GitHubError.paginationLoop(url: APIOrigin.displayable(next))
        }
    }

    /// Counts the commits of a stored page that were stored already; what is wrong, if they are too many.
    mutating func stored(_ commits: Int, added: Int) -> String? {
        staleElements += commits - added
        guard staleElements > staleBound else { return nil }
        return "the listing returned \(plural(staleElements, "commit")) already stored, more than the repository holds"
    }
}
