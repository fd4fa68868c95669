import Foundation
import Logging

// Walks: one listing pinned to a head, followed to the roots or to what is stored.
extension SyncEngine {
    // MARK: - Walks

    /// Runs one walk until its frontier is empty, listing missing parents on
    /// their own when a listing runs out before that. With `mayBootstrap` (the
    /// walk of a history never completed), a walk with at least
    /// `GitBootstrap.minimumPages` pages ahead reads the history over git, and
    /// goes on over REST only for what git did not give.
    /// `completing`: the walk lists what the repository misses under another
    /// branch's walk (`completeHistory`), so missing parents are what it expects.
    func walk(_ initial: Walk, _ context: Context, prefetch: Bool, mayBootstrap: Bool, completing: Bool = false) async throws -> Tally {
        var walk = initial
        var tally = Tally()
        var bootstrapAllowed = mayBootstrap && gitBootstrap != nil
        if walk.pagesDone > 0 {
            context.logger.info(
                "resuming interrupted walk",
                metadata: [
                    "walk.head": "\(walk.headSHA)", "walk.pages_done": "\(walk.pagesDone)",
                ])
            if try store.pruneFrontier(walkID: walk.id, repositoryID: context.repository.id) == 0 {
                try store.finishWalk(walk)
                return tally
            }
            // A walk stopped right after its first page (a bootstrap interrupted) reads over
            // git again; one that went on over REST after git failed stays on REST.
            if bootstrapAllowed, walk.pagesDone == 1, walk.nextURL != nil, let gitBootstrap, let total = walk.pagesTotal,
                total - walk.pagesDone >= gitBootstrap.minimumPages
            {
                bootstrapAllowed = false
                let added = try await bootstrap(walk, context)
                tally = tally + Tally(added: added, addedOverGit: added)
                if try store.pruneFrontier(walkID: walk.id, repositoryID: context.repository.id) == 0 {
                    try store.finishWalk(walk)
                    return tally
                }
            }
        }
        if let resume = walk.nextURL, origin?.contains(resume) != true {
            // Written by an older version, or before the API URL changed: never followed.
            context.logger.warning(
                "ignoring a resume point outside the API; listing the missing parents instead",
                metadata: ["walk.resume": "\(APIOrigin.displayable(resume))"])
            walk.nextURL = nil
        }
        var relisted = 0
        while true {
            let listing: Listing
            if let resume = walk.nextURL {
                listing = Listing(url: resume, pinnedTo: nil)
            } else if let parent = try store.missingParents(walkID: walk.id, limit: 1).first {
                relisted += 1
                guard relisted <= Self.maximumRelistings else {
                    throw inconsistency(context, "listing \(relisted - 1) missing parents on their own still left parents unlisted")
                }
                context.logger.log(
                    level: completing ? .debug : .warning,
                    completing ? "listing a parent the repository misses" : "a listing left out a parent; listing it on its own",
                    metadata: [
                        "walk.head": "\(walk.headSHA)", "walk.missing_parent": "\(parent)",
                    ])
                walk.listingSHA = parent
                listing = Listing(url: client.firstCommitsPageURL(context.name, sha: parent), pinnedTo: parent)
            } else if walk.pagesDone == 0 {
                walk.listingSHA = nil
                listing = Listing(url: client.firstCommitsPageURL(context.name, sha: walk.headSHA), pinnedTo: walk.headSHA)
            } else {
                break
            }
            let handOff = bootstrapAllowed && relisted == 0 && listing.pinnedTo == walk.headSHA
            let listed = try await list(listing, walk: walk, context, prefetch: prefetch && relisted == 0, handOffToGit: handOff)
            tally = tally + listed.tally
            walk = listed.walk
            if listed.handedOffToGit {
                bootstrapAllowed = false
                let added = try await bootstrap(walk, context)
                tally = tally + Tally(added: added, addedOverGit: added)
                if try store.pruneFrontier(walkID: walk.id, repositoryID: context.repository.id) == 0 { break }
                continue  // over REST from the page after the first
            }
            if listed.frontierEmptied { break }
            walk.nextURL = nil
        }
        try store.finishWalk(walk)
        return tally
    }

    /// Lists what the repository still misses before the branch at `head` is
    /// called whole, when another branch's walk is under way: that walk's pages
    /// may hold commits whose parents are not stored yet, and a walk of this
    /// branch that stopped on them (their parents looked stored) did not reach
    /// the roots. The walk takes over the missing parents of the repository (the
    /// other walk then finds them stored), so nothing is listed twice but a page
    /// at most. Without another walk under way, stored history is whole: nothing to do.
    func completeHistory(head: String, _ context: Context) async throws -> Tally {
        let repositoryID = context.repository.id
        guard try store.hasPendingWalks(repositoryID: repositoryID, otherThan: context.branch) else { return Tally() }
        let walk = try store.beginRepairWalk(repositoryID: repositoryID, branch: context.branch, headSHA: head)
        let missing = try store.frontierCount(walkID: walk.id)
        guard missing > 0 else {
            try store.finishWalk(walk)
            return Tally()
        }
        context.logger.info(
            "another branch's walk is under way; listing what the repository misses before this branch is whole",
            metadata: ["walk.head": "\(head)", "walk.missing_parents": "\(missing)"])
        return try await self.walk(walk, context, prefetch: false, mayBootstrap: false, completing: true)
    }

    /// Reads the walk's history over git; returns the commits that joined the
    /// repository (0 when git could not give it: the walk goes on over REST).
    private func bootstrap(_ walk: Walk, _ context: Context) async throws -> Int {
        guard let gitBootstrap else { return 0 }
        if lookedUp == nil { _ = try await checkIdentity(of: context.repository, name: context.name) }
        guard let cloneURL = lookedUp?.cloneURL else {
            context.logger.notice("the repository has no clone URL; listing its history over REST")
            return 0
        }
        let target = GitBootstrap.Target(
            cloneURL: cloneURL, htmlURL: lookedUp?.htmlURL, tips: [context.branch: walk.headSHA],
            repositoryID: context.repository.id, expectedCommits: walk.pagesTotal.map { $0 * Self.pageSize },
            sharesTheStore: sharesTheStore)
        switch try await gitBootstrap.run(target, client: client, store: store, logger: context.logger) {
        case .stored(let added, let requests, let packBytes):
            gitRequests += requests
            context.logger.info(
                "history read over git",
                metadata: ["git.new_commits": "\(added)", "git.requests": "\(requests)", "git.pack.bytes": "\(packBytes)"])
            return added
        case .unavailable(let reason):
            context.logger.warning("history not read over git; listing it over REST", metadata: ["git.reason": "\(reason)"])
            return 0
        }
    }
}
