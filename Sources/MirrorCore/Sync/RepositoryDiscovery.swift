import Foundation
import Logging

/// Expands `OWNER/*` patterns into repositories: lists the owner's
/// repositories through the API, records each selected one's identity (so its
/// sync need not look it up) and keeps the lifecycle.
///
/// - The listing (`/orgs/{owner}/repos`, or `/users/{owner}/repos` when the
///   organization answers 404; with a GitHub App, `/installation/repositories`,
///   what the installation may see) is paginated through `Link: rel="next"` links
///   that stay on the API's origin. Every page is sent with the ETag it had last
///   time: an unchanged owner costs one conditional request per page, answered
///   304 (free when authenticated).
/// - A repository that appears is selected (unless a fork or archived and not
///   asked for); one that was gone and reappears is active again; a renamed or
///   transferred one keeps its row, found by its GitHub id.
/// - A mirrored repository missing from the listing is marked gone only after
///   GitHub confirms it on its own (404, its name now another repository's, or
///   moved outside the patterns): a listing that merely left it out changes
///   nothing. An empty listing, or a 404 for the whole owner, while repositories
///   are mirrored is not believed at all. Nothing is ever deleted.
public struct RepositoryDiscovery: Sendable {
    /// One pattern with what it includes.
    public struct Selection: Sendable, Hashable {
        public var pattern: RepositoryPattern
        public var includeForks: Bool
        public var includeArchived: Bool

        public init(pattern: RepositoryPattern, includeForks: Bool = false, includeArchived: Bool = false) {
            self.pattern = pattern
            self.includeForks = includeForks
            self.includeArchived = includeArchived
        }

        func selects(_ repository: GitHubClient.ListedRepository, named name: RepositoryName) -> Bool {
            pattern.matches(name) && (includeForks || !repository.fork) && (includeArchived || !repository.archived)
        }
    }

    /// One repository a discovery selected.
    public struct Selected: Sendable, Equatable {
        public var name: RepositoryName
        /// The first of the selections that selects it (its interval applies).
        public var selection: Int
    }

    /// What one discovery of one owner found.
    public struct Outcome: Sendable {
        public var owner: String
        /// Active repositories to mirror, in listing order.
        public var selected: [Selected] = []
        /// Every page answered 304: the owner's repositories did not change.
        public var unchanged = false
        /// Selected and not mirrored before.
        public var added: [RepositoryName] = []
        public var returned: [RepositoryName] = []
        public var gone: [(name: RepositoryName, reason: String)] = []
        /// Listed and matching, but removed by the user: not mirrored.
        public var removed: [RepositoryName] = []
        public var requests = 0
        public var notModified = 0

        /// `acme/*: 12 repositories (1 new, 1 gone), 1 request (1 not modified)`
        public func summary(patterns: String) -> String {
            var text = "\(patterns): \(plural(selected.count, "repository", "repositories"))"
            var changes: [String] = []
            if !added.isEmpty { changes.append("\(added.count) new") }
            if !returned.isEmpty { changes.append("\(returned.count) back") }
            if !gone.isEmpty { changes.append("\(gone.count) gone") }
            if !changes.isEmpty { text += " (\(changes.joined(separator: ", ")))" }
            text += ", \(plural(requests, "request"))"
            if notModified > 0 { text += " (\(notModified) not modified)" }
            return text
        }
    }

    /// Repositories a page holds at most (`per_page=100`).
    static let pageSize = 100
    /// Pages one listing may have (100 repositories each) before it is refused as endless.
    static let maximumPages = 2_000
    /// Repositories missing from a listing that one discovery checks one by one;
    /// the rest are checked by the next discoveries.
    static let maximumConfirmations = 100

    public let store: StoreLocation
    public let client: GitHubClient
    public let logger: Logger

    public init(store: StoreLocation, client: GitHubClient, logger: Logger) {
        self.store = store
        self.client = client
        self.logger = logger
    }

    /// Lists `owner` once for every selection on it (patterns of other owners are ignored).
    /// Runs on `DedicatedThreads.store`, never blocking a thread of the cooperative pool.
    public func discover(owner: String, selections: [Selection]) async throws -> Outcome {
        try await DedicatedThreads.store.run { try await discoverOnStoreThreads(owner: owner, selections: selections) }
    }

    private func discoverOnStoreThreads(owner: String, selections: [Selection]) async throws -> Outcome {
        let usageBefore = client.usage
        var logger = self.logger
        logger[metadataKey: "owner"] = "\(owner)"
        let store = try self.store.openSyncWriter()
        let previous = try store.ownerListing(owner: owner)
        let listing = try await list(owner: owner, previous: previous, store: store)
        var outcome = Outcome(owner: owner)

        let selections = selections.filter { $0.pattern.owner.lowercased() == owner.lowercased() }
        func selection(for name: RepositoryName) -> Int? {
            selections.firstIndex { $0.pattern.matches(name) }
        }
        let (identities, selectionOf, seen) = try selected(in: listing.listing, of: owner, by: selections)

        // Mirrored repositories of these patterns that the listing leaves out.
        let missing = try store.activeRepositories(ownedBy: owner).filter { repository in
            guard let id = repository.githubID, !seen.contains(id) else { return false }
            return selection(for: repository.name) != nil
        }
        if listing.listing.repositories.isEmpty, !missing.isEmpty {
            throw DiscoveryError.inconsistentListing(
                owner: owner,
                detail:
                    "it is empty, yet \(plural(missing.count, "repository", "repositories")) of it are mirrored here; none was marked gone")
        }

        let namesBefore = try store.namesByGitHubID()
        for listed in try store.recordListing(listing.listing, selected: identities) {
            let githubID = listed.repository.githubID ?? 0
            if let former = namesBefore[githubID], former != listed.repository.name {
                // Renamed or transferred: the lock file under its old name is no longer used.
                RepositoryLock.removeLockFile(store: self.store, repository: former)
            }
            switch listed.state {
            case .removed:
                outcome.removed.append(listed.repository.name)
                continue
            case .gone, .active:
                break
            }
            if listed.returned { outcome.returned.append(listed.repository.name) }
            if namesBefore[githubID] == nil && !listed.returned { outcome.added.append(listed.repository.name) }
            outcome.selected.append(Selected(name: listed.repository.name, selection: selectionOf[githubID] ?? 0))
        }
        outcome.unchanged = listing.unchanged

        for repository in missing.prefix(Self.maximumConfirmations) {
            switch try await confirmMissing(repository, selections: selections, store: store, logger: logger) {
            case .stillThere(let name):
                if let index = selection(for: name) { outcome.selected.append(Selected(name: name, selection: index)) }
            case .gone(let reason):
                try store.setState(.gone, repositoryID: repository.id, reason: reason)
                RepositoryLock.removeLockFile(store: self.store, repository: repository.name)
                logger.notice("repository is gone; its history is kept", metadata: ["repo": "\(repository.name)", "reason": "\(reason)"])
                outcome.gone.append((repository.name, reason))
            }
        }
        if missing.count > Self.maximumConfirmations {
            logger.notice(
                "more repositories left the listing than one discovery checks; the next discoveries check the rest",
                metadata: ["discovery.unchecked": "\(missing.count - Self.maximumConfirmations)"])
        }
        let usage = client.usage
        outcome.requests = usage.requests - usageBefore.requests
        outcome.notModified = usage.notModified - usageBefore.notModified
        logger.info(
            "discovery finished",
            metadata: [
                "discovery.selected": "\(outcome.selected.count)", "discovery.added": "\(outcome.added.count)",
                "discovery.gone": "\(outcome.gone.count)", "discovery.requests": "\(outcome.requests)",
                "discovery.unchanged": "\(outcome.unchanged)",
            ])
        return outcome
    }

    // MARK: - The listing

    private struct Listed {
        var listing: OwnerListing
        var unchanged: Bool
    }

    /// Every page of the owner's listing, each sent with its last ETag.
    private func list(owner: String, previous: OwnerListing?, store: any RepositoryCatalogue) async throws -> Listed {
        let origin = APIOrigin(url: client.configuration.apiURL)
        var kind = previous?.kind ?? .organization
        // With an App, the installation's listing; its page URLs are not the owner's, so a
        // listing stored under a token (or the other way round) lends no ETag.
        let viaInstallation = client.configuration.app != nil
        var url = viaInstallation ? client.installationRepositoriesURL : client.ownerRepositoriesURL(owner, kind: kind)
        var pages: [OwnerListing.Page] = []
        var visited: Set<String> = []
        var allNotModified = true
        while true {
            try Task.checkCancellation()
            guard visited.insert(url).inserted else { throw GitHubError.paginationLoop(url: APIOrigin.displayable(url)) }
            guard pages.count < Self.maximumPages else {
                throw DiscoveryError.inconsistentListing(owner: owner, detail: "it went on past \(Self.maximumPages) pages")
            }
            let cached = previous.flatMap { previous in
                previous.kind == kind && pages.count < previous.pages.count && previous.pages[pages.count].url == url
                    ? previous.pages[pages.count] : nil
            }
            let answer: GitHubClient.OwnerRepositoriesPage
            do {
                answer = try await client.ownerRepositoriesPage(
                    url: url, owner: owner, etag: cached?.etag, installation: viaInstallation)
            } catch GitHubError.notFound where pages.isEmpty {
                if kind == .organization && !viaInstallation {
                    // Not an organization: a user account, listed by /users/.
                    kind = .user
                    url = client.ownerRepositoriesURL(owner, kind: kind)
                    visited = []
                    allNotModified = false
                    continue
                }
                throw DiscoveryError.ownerNotFound(
                    owner: owner, tokenSource: client.configuration.credentialSource,
                    mirrored: try store.activeRepositories(ownedBy: owner).count)
            }
            let page: OwnerListing.Page
            switch answer {
            case .notModified:
                // We only send an ETag we have a page for: a 304 to anything else is a server's mistake.
                guard let cached else {
                    throw DiscoveryError.inconsistentListing(owner: owner, detail: "a 304 for a page never listed")
                }
                page = cached
            case .listed(let repositories, let etag, let next, _):
                allNotModified = false
                guard repositories.count <= Self.pageSize else {
                    throw DiscoveryError.inconsistentListing(
                        owner: owner, detail: "a page of \(repositories.count) repositories, more than the \(Self.pageSize) asked for")
                }
                try Self.checkOwnership(of: repositories, by: owner, viaInstallation: viaInstallation)
                var resolved: String?
                switch ListingNextPage(next: next, of: url, pageIsEmpty: repositories.isEmpty, origin: origin) {
                case .end: resolved = nil
                case .at(let target): resolved = target
                case .refused(let link, let origin): throw DiscoveryError.linkRefused(owner: owner, link: link, origin: origin)
                }
                page = OwnerListing.Page(url: url, etag: etag, next: resolved, repositories: repositories)
            }
            pages.append(page)
            guard let next = page.next else { break }
            url = next
        }
        let unchanged = allNotModified && pages.count == previous?.pages.count
        return Listed(listing: OwnerListing(owner: owner, kind: kind, pages: pages), unchanged: unchanged)
    }

    /// The listed repositories that a selection takes, each listed once, with the selection that took it.
    private func selected(
        in listing: OwnerListing, of owner: String, by selections: [Selection]
    ) throws -> (identities: [RepositoryIdentity], selectionOf: [Int: Int], seen: Set<Int>) {
        var identities: [RepositoryIdentity] = []
        var selectionOf: [Int: Int] = [:]
        var seen = Set<Int>()
        for repository in listing.repositories where seen.insert(repository.id).inserted {
            guard let name = RepositoryName(parsing: repository.fullName) else {
                throw DiscoveryError.inconsistentListing(owner: owner, detail: "a full_name that is no repository name")
            }
            guard let index = selections.firstIndex(where: { $0.selects(repository, named: name) }) else { continue }
            guard let branch = repository.defaultBranch, !branch.isEmpty, BranchName.problem(with: branch) == nil else {
                throw DiscoveryError.inconsistentListing(owner: owner, detail: "\(name) has no usable default_branch")
            }
            identities.append(.init(githubID: repository.id, fullName: name, defaultBranch: branch, htmlURL: repository.htmlURL))
            selectionOf[repository.id] = index
        }
        return (identities, selectionOf, seen)
    }

    /// Refuses a page that lists a repository of another owner, or one without a usable id.
    private static func checkOwnership(
        of repositories: [GitHubClient.ListedRepository], by owner: String, viaInstallation: Bool
    ) throws {
        if let stranger = repositories.first(where: { !isOwned($0, by: owner) }) {
            let detail =
                viaInstallation
                // An installation sees one account's repositories: the App is installed elsewhere.
                ? "the GitHub App's installation lists \(stranger.fullName.prefix(200)): it is installed on \(stranger.ownerLogin.prefix(100)), not on \(owner)"
                : "it lists \(stranger.fullName.prefix(200)), owned by \(stranger.ownerLogin.prefix(100))"
            throw DiscoveryError.inconsistentListing(owner: owner, detail: detail)
        }
        if let bad = repositories.first(where: { $0.id <= 0 }) {
            throw DiscoveryError.inconsistentListing(owner: owner, detail: "\(bad.fullName.prefix(200)) has id \(bad.id)")
        }
    }

    private static func isOwned(_ repository: GitHubClient.ListedRepository, by owner: String) -> Bool {
        let owner = owner.lowercased()
        return repository.ownerLogin.lowercased() == owner
            && RepositoryName(parsing: repository.fullName)?.owner.lowercased() == owner
    }

    // MARK: - Repositories the listing left out

    private enum Confirmation {
        case stillThere(RepositoryName)
        case gone(reason: String)
    }

    /// Asks GitHub about one mirrored repository the listing left out.
    private func confirmMissing(
        _ repository: StoredRepository, selections: [Selection], store: any RepositoryCatalogue, logger: Logger
    ) async throws -> Confirmation {
        let info: GitHubClient.RepositoryInfo
        do {
            info = try await client.repository(repository.name)
        } catch GitHubError.notFound {
            return .gone(reason: "left its owner's listing; GitHub answers 404 for it")
        }
        guard info.id == repository.githubID else {
            return .gone(reason: "left its owner's listing; its name now belongs to another repository (id \(info.id))")
        }
        guard let current = RepositoryName(parsing: info.fullName) else {
            throw DiscoveryError.inconsistentListing(owner: repository.name.owner, detail: "a full_name that is no repository name")
        }
        if current != repository.name {
            _ = try store.adopt(
                .init(githubID: info.id, fullName: current, defaultBranch: info.defaultBranch, htmlURL: info.htmlURL),
                requestedAs: repository.name)
        }
        if selections.contains(where: { $0.pattern.matches(current) }) {
            logger.warning(
                "the owner's listing left out a repository GitHub still serves; it stays mirrored",
                metadata: ["repo": "\(current)"])
            return .stillThere(current)
        }
        return .gone(reason: "moved to \(current), outside the patterns mirrored")
    }
}
