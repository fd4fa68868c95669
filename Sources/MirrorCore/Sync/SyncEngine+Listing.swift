import Foundation
import Logging

// Listings: pages of one listing, stored in batches, checked against each other.
extension SyncEngine {
    /// Where a listing starts: a first page pinned to a sha, or a stored resume point.
    struct Listing {
        var url: String
        /// The sha the first page must start with (`nil` when resuming mid-listing).
        var pinnedTo: String?
    }

    /// What following one listing did.
    struct Listed {
        var tally: Tally
        /// The walk with its checkpoint as stored with the last page.
        var walk: Walk
        /// True when the walk's frontier emptied, false when the listing ran out first.
        var frontierEmptied: Bool
        /// True when the listing stopped after its first page for git to read the rest.
        var handedOffToGit = false
    }

    /// About how many commits a listing that resumes the walk's own will store
    /// (the pages its first page announced that are still ahead, within this
    /// sync's page limit): a hint for the store (`BatchLimits.expectedCommits`).
    /// A first page that may hand off to git stores at most the pages git is not
    /// worth (a first page announcing more hands the rest to git), so no more than
    /// that many commits. Unknown for another first page and for a listing of a
    /// missing parent.
    func expectedCommits(_ listing: Listing, walk: Walk, handOffToGit: Bool) -> Int? {
        if handOffToGit, walk.pagesTotal == nil, let gitBootstrap { return gitBootstrap.minimumPages * Self.pageSize }
        guard listing.pinnedTo == nil, let total = walk.pagesTotal else { return nil }
        var pages = max(0, total - walk.pagesDone)
        if let pageLimit { pages = min(pages, max(0, pageLimit - pagesFetched)) }
        return pages * Self.pageSize
    }

    /// Follows one listing page by page. With `handOffToGit`, a first page that
    /// announces at least `GitBootstrap.minimumPages` more is stored and the
    /// listing stops there, with nothing fetched ahead.
    func list(_ listing: Listing, walk initial: Walk, _ context: Context, prefetch: Bool, handOffToGit: Bool) async throws
        -> Listed
    {
        var walk = initial
        var tally = Tally()
        let clock = ContinuousClock()
        let start = clock.now
        let name = context.name
        var url = listing.url
        let storedBefore = try store.commitCount(repositoryID: context.repository.id)
        var checks = ListingGuard(
            startingAt: url, pinnedTo: listing.pinnedTo, storedBefore: storedBefore, pageSize: Self.pageSize)
        // Into a repository that held nothing, an honest listing's frontier empties only at its
        // last page, so pages ahead may be asked for before this one is stored; otherwise this
        // page may reach stored commits and end the walk, so only once it is stored.
        let storedNothingBefore = storedBefore == 0
        var pending: PrefetchedPage?
        defer { pending?.cancel() }
        let source = prefetchSource(for: name)

        var limits = sharesTheStore ? Self.sharedStoreBatchLimits : batchLimits
        limits.expectedCommits = expectedCommits(listing, walk: initial, handOffToGit: handOffToGit)
        // An error or cancellation ending the listing keeps the pages stored so far (see withBatches).
        return try await store.withBatches(limits: limits) { batches in
            while true {
                // A cancelled sync (a service's graceful shutdown) stops here, between pages.
                try Task.checkCancellation()
                let fetched = pending
                pending = nil
                let page = try await receive(fetched, orFetch: url, batches: batches, walk: walk, context)
                pagesFetched += 1
                let stepEnds = pageLimit.map { pagesFetched >= $0 } ?? false
                if let problem = checks.read(page) { throw inconsistency(context, problem) }
                let next = try nextPage(of: page, at: url, context)
                try checks.follow(next)
                let handOff =
                    handOffToGit && checks.pagesRead == 1 && next != nil
                    && (page.lastPageNumber ?? 0) - (walk.pagesDone + 1) >= (gitBootstrap?.minimumPages ?? .max)
                let prefetchable = prefetch && !handOff && !stepEnds
                if let early = fetched?.takeNext(ifFor: prefetchable ? next : nil) {
                    pending = early  // started as this page's response came in (PrefetchedPage)
                } else if prefetchable, let next, page.hasParentsOutsideItself {
                    // Fetch page N+1 while page N is stored (still one request at a time). A page
                    // whose parents all lie within itself holds the roots: the walk is about to
                    // end, so fetching ahead could only waste a request.
                    pending = PrefetchedPage(url: next, source: source)
                }
                if storedNothingBefore, let next { allowFetchPastNext(pending, at: next, visited: checks.visited, ahead: Self.pagesAhead) }
                let stored = try batches.store(
                    page: page.commits, repositoryID: context.repository.id, walk: walk,
                    nextURL: next, pagesTotal: page.lastPageNumber)
                let outcome = stored.outcome
                walk = stored.checkpoint
                if let problem = checks.stored(page.commits.count, added: outcome.added) {
                    throw inconsistency(context, problem)
                }
                tally = tally + Tally(added: outcome.added, updated: outcome.updated, pages: 1)
                progress?(
                    SyncProgress(
                        repository: name, pagesDone: walk.pagesDone, pagesTotal: walk.pagesTotal,
                        commitsStored: tally.added, elapsed: clock.now - start))
                guard outcome.frontier > 0, let next else {
                    return Listed(tally: tally, walk: walk, frontierEmptied: outcome.frontier == 0)
                }
                if handOff {
                    return Listed(tally: tally, walk: walk, frontierEmptied: false, handedOffToGit: true)
                }
                if stepEnds {
                    throw SyncStepEnded(repository: name, pages: pagesFetched)
                }
                if !storedNothingBefore { allowFetchPastNext(pending, at: next, visited: checks.visited, ahead: 1) }
                url = next
            }
        }
    }

    /// Where pages fetched ahead come from: this engine's client, for `name`'s listing.
    private func prefetchSource(for name: RepositoryName) -> PrefetchedPage.Source {
        let client = self.client
        let logger = self.logger
        return PrefetchedPage.Source(
            receive: { try await client.receiveCommitsPage(url: $0, repository: name) },
            decode: { received in
                do {
                    return try received.decoded()
                } catch {
                    // Said here: the retrying path that asks for the page again reports only its own attempts.
                    logger.warning(
                        "a page fetched ahead did not decode; asking for it again", metadata: ["repo": "\(name)"])
                    throw error
                }
            },
            page: { try await client.commitsPage(url: $0, repository: name) })
    }

    /// The next page: the one fetched ahead, or else fetched now. The open batch is
    /// committed first when nothing was fetched ahead or it is slow to arrive, so a
    /// batch never waits on the network for long.
    private func receive(
        _ fetched: PrefetchedPage?, orFetch url: String, batches: any PageBatches, walk: Walk, _ context: Context
    ) async throws -> GitHubClient.CommitsPage {
        do {
            if let fetched {
                if batches.isOpen, !(await fetched.arrives(within: batchWait)) {
                    try batches.commit()
                }
                return try await fetched.value
            }
            try batches.commit()
            return try await client.commitsPage(url: url, repository: context.name)
        } catch GitHubError.notFound {
            // The head probe has just answered for the repository: a 404 here is
            // for the sha, one GitHub itself named. Not "repository not found".
            throw inconsistency(
                context, "GitHub answers 404 for the listing of \(walk.listingSHA ?? walk.headSHA), a commit it named")
        }
    }

    /// Lets `page` (fetched ahead, at `url`) request the page after it as soon as its own
    /// response is in, before its body tells whether it holds the roots: so only when
    /// that page cannot be past the end. An exactly full last page still links `next` to
    /// an empty page (docs/GITHUB-API.md), so it goes early only when it numbers below
    /// `page`'s `last`, to a URL the listing has not visited, within the step. With
    /// `ahead` above one, the pages it starts go on by the same rule, each to a page
    /// numbered above its own, `ahead` pages past `page` at most (never in a step).
    private func allowFetchPastNext(_ page: PrefetchedPage?, at url: String, visited: Set<String>, ahead: Int) {
        let mayFetchPastNext = pageLimit.map { pagesFetched + 1 < $0 } ?? true
        page?.allowNext(
            { [origin] links, pageURL in
                guard mayFetchPastNext, let link = links?.next, let nextNumber = LinkHeader.pageNumber(of: link),
                    let lastNumber = links?.last.flatMap(LinkHeader.pageNumber), nextNumber < lastNumber,
                    nextNumber > LinkHeader.pageNumber(of: pageURL) ?? 1,
                    let resolved = origin?.resolve(link, against: pageURL), !visited.contains(resolved)
                else { return nil }
                return resolved
            }, ahead: pageLimit == nil ? ahead : 1)
    }

    /// The page's `rel="next"` resolved against its URL, when it stays on the
    /// API's origin; an empty page ends the listing whatever it links to.
    private func nextPage(of page: GitHubClient.CommitsPage, at url: String, _ context: Context) throws -> String? {
        guard !page.commits.isEmpty, let link = page.links?.next else { return nil }
        guard let origin, let resolved = origin.resolve(link, against: url) else {
            throw SyncError.linkRefused(
                repository: context.name.description, link: APIOrigin.displayable(link),
                origin: origin?.description ?? "the API")
        }
        return resolved
    }
}

extension GitHubClient.CommitsPage {
    var hasParentsOutsideItself: Bool {
        let shas = Set(commits.map(\.sha))
        return commits.contains { $0.parents.contains { !shas.contains($0) } }
    }
}
