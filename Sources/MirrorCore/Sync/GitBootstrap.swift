import Curl
import Foundation
import Logging

/// Reads the history of a long first walk over git instead of page by page
/// (issue #12): one commits-only fetch costs 3 requests that spend no REST rate
/// limit, where the walk would spend one per 100 commits.
///
/// The history is taken only when git's branch tip is the very commit the walk
/// is pinned to, and `GitHistoryFetcher` has verified every object's name, so
/// what is stored is exactly the history REST would list. Anything else (no git
/// endpoint, no protocol v2 or filters, no access, a broken pack, another tip)
/// is `unavailable`: the walk goes on over REST, and nothing of that pack was
/// stored.
public struct GitBootstrap: Sendable {
    /// Pages a never-completed walk must still have ahead for git to read them.
    public var minimumPages: Int
    /// The HTTP settings of the git fetch (timeouts, size bounds).
    public var http: HTTPClient.Configuration?

    public static let defaultMinimumPages = 20

    public init(minimumPages: Int = GitBootstrap.defaultMinimumPages, http: HTTPClient.Configuration? = nil) {
        self.minimumPages = minimumPages
        self.http = http
    }

    /// What a bootstrap did.
    public enum Outcome: Sendable, Equatable {
        /// The branch's history was stored: `added` commits joined the repository.
        case stored(added: Int, requests: Int, packBytes: Int)
        /// Git could not give the history; `reason` says why, in one line.
        case unavailable(reason: String)
    }

    /// Where the history comes from and where it goes.
    struct Target {
        var cloneURL: String
        var htmlURL: String?
        var branch: String
        /// The walk's head: git's tip must be this commit.
        var head: String
        var repositoryID: Int64
    }

    /// Fetches and stores `target`'s history. Throws only what stops the sync
    /// anyway (cancellation, a store that cannot be written).
    func run(_ target: Target, client: GitHubClient, store: MirrorStore, logger: Logger) async throws -> Outcome {
        var configuration = GitHistoryFetcher.Configuration(
            cloneURL: target.cloneURL,
            credentials: GitCredentials.forClone(
                url: target.cloneURL, apiURL: client.configuration.apiURL, token: client.configuration.token))
        if let http { configuration.http = http }
        configuration.htmlURLPrefix = target.htmlURL
        let delivery = Delivery(store: store, repositoryID: target.repositoryID)
        do {
            let fetcher = try GitHistoryFetcher(configuration: configuration, logger: logger)
            let result = try await fetcher.fetchHistory(branch: target.branch, expectedTip: target.head) { commits in
                try delivery.store(commits)
            }
            return .stored(added: delivery.added, requests: result.requests, packBytes: result.packBytes)
        } catch let failure as Delivery.StoreFailure {
            throw failure.error
        } catch is CancellationError {
            throw CancellationError()
        } catch GitError.cancelled {
            throw CancellationError()
        } catch {
            return .unavailable(reason: client.redact("\(error)"))
        }
    }

    /// The fetcher's deliveries, stored as they come. `deliver` runs on the
    /// fetcher's own queue, one call at a time, while the engine awaits the
    /// fetch: the store is never used from two places at once, and `added` is
    /// read only after the fetch returned.
    private final class Delivery: @unchecked Sendable {
        let store: MirrorStore
        let repositoryID: Int64
        private(set) var added = 0

        /// A store error, told apart from the fetch's own failures.
        struct StoreFailure: Error {
            let error: any Error
        }

        init(store: MirrorStore, repositoryID: Int64) {
            self.store = store
            self.repositoryID = repositoryID
        }

        func store(_ commits: [Commit]) throws {
            do {
                added += try store.storeFromGit(commits, repositoryID: repositoryID)
            } catch {
                throw StoreFailure(error: error)
            }
        }
    }
}
