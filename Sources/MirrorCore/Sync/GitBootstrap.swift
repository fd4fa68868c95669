import Foundation
import Logging

/// Reads the history of a long first walk over git instead of page by page:
/// one commits-only fetch costs 3 requests that spend no REST rate
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
    /// How fast git must send the pack; a slower fetch is `unavailable`.
    public var pace = GitFetchPace()
    /// Whether the history is read with its trees, so that every commit is
    /// stored with the paths it changed (`filter blob:none`). A pack whose trees
    /// are missing or fail a check still gives the commits: the fetch is made
    /// again commits-only, and those commits' paths stay not yet known.
    public var readsChanges = true
    /// Set only by a test that kills a sync inside the storing of a history
    /// (`TestTimings.gitPauseSeconds`): how long to wait once the first batch
    /// of commits is committed, before storing the next.
    public var pauseAfterFirstBatch: Duration?

    public static let defaultMinimumPages = 20
    /// Commits stored per write transaction: what a kill mid-bootstrap costs.
    /// Smaller transactions would cost time (each commit writes the WAL).
    static let commitsPerTransaction = 5_000
    /// Commits read out of the pack at a time: the bootstrap holds two such
    /// batches (one being stored, one being read), ~1.2 KB a commit.
    static let commitsPerBatch = 1_000

    public init(
        minimumPages: Int = GitBootstrap.defaultMinimumPages, pace: GitFetchPace = GitFetchPace(),
        pauseAfterFirstBatch: Duration? = nil, readsChanges: Bool = true
    ) {
        self.minimumPages = minimumPages
        self.pace = pace
        self.pauseAfterFirstBatch = pauseAfterFirstBatch
        self.readsChanges = readsChanges
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
        /// Each branch wanted, with the commit git's tip must be (the walk's
        /// head, or the head the branch listing named): one fetch for them all.
        var tips: [String: String]
        var repositoryID: Int64
        /// What the API's first page announced (pages × page size), for the fetch's deadline.
        var expectedCommits: Int?
        /// Each chunk of commits commits on its own (`SyncEngine.sharesTheStore`).
        var sharesTheStore = false
    }

    /// Fetches and stores `target`'s history. Throws only what stops the sync
    /// anyway (cancellation, a store that cannot be written).
    func run(_ target: Target, client: GitHubClient, store: any SyncStore, logger: Logger) async throws -> Outcome {
        let credentials: GitCredentials?
        do {
            credentials = try await client.gitCredentials(forClone: target.cloneURL)
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            // An installation token that cannot be minted now: the walk goes on over REST,
            // whose requests meet the same failure and report it.
            return .unavailable(reason: client.redact("\(error)"))
        }
        var configuration = GitHistoryFetcher.Configuration(cloneURL: target.cloneURL, credentials: credentials)
        configuration.htmlURLPrefix = target.htmlURL
        configuration.batchSize = Self.commitsPerBatch
        configuration.pace = pace
        configuration.expectedCommits = target.expectedCommits
        let limits = BatchLimits(
            maximumCommits: target.sharesTheStore ? Self.commitsPerBatch : Self.commitsPerTransaction,
            expectedCommits: target.expectedCommits)
        // Commits a fetch with trees stored before its trees failed: they count in what the sync added.
        var addedWithTrees = 0
        if readsChanges {
            do {
                return try await fetchAndStore(target, configuration, limits, store, logger, withChanges: true)
            } catch let failure as TreesFailed {
                addedWithTrees = failure.added
                logger.info(
                    "git gave no trees; reading the commits alone", metadata: ["reason": "\(client.redact("\(failure.error)"))"])
            } catch {
                return try Self.unavailable(error, client: client)
            }
        }
        do {
            let outcome = try await fetchAndStore(target, configuration, limits, store, logger, withChanges: false)
            guard case .stored(let added, let requests, let packBytes) = outcome else { return outcome }
            return .stored(added: added + addedWithTrees, requests: requests, packBytes: packBytes)
        } catch {
            return try Self.unavailable(error, client: client)
        }
    }

    /// A fetch with trees that failed on them (`GitError.concernsTrees`), after
    /// storing `added` commits with their changes.
    private struct TreesFailed: Error {
        let error: GitError
        let added: Int
    }

    /// Throws what stops the sync anyway (cancellation, a store that cannot be
    /// written); anything else leaves the walk to REST.
    private static func unavailable(_ error: any Error, client: GitHubClient) throws -> Outcome {
        switch error {
        case let failure as Delivery.StoreFailure: throw failure.error
        case is CancellationError, GitError.cancelled: throw CancellationError()
        default:
            // A server's words may echo what it was sent: the client's redactor knows the token
            // in every encoding, the Basic credentials git hosts receive included.
            return .unavailable(reason: client.redact("\(error)"))
        }
    }

    private func fetchAndStore(
        _ target: Target, _ configuration: GitHistoryFetcher.Configuration, _ limits: BatchLimits, _ store: any SyncStore,
        _ logger: Logger, withChanges: Bool
    ) async throws -> Outcome {
        try await store.withBatches(limits: limits) { batches in
            let delivery = Delivery(batches: batches, repositoryID: target.repositoryID, pause: pauseAfterFirstBatch)
            do {
                let fetcher = try GitHistoryFetcher(configuration: configuration, logger: logger)
                let branches = target.tips.keys.sorted()
                let result =
                    withChanges
                    ? try await fetcher.fetchChanges(branches: branches, expectedTips: target.tips) { changed in
                        try delivery.hand(changed.map(\.commitWithChanges))
                    }
                    : try await fetcher.fetchHistory(branches: branches, expectedTips: target.tips) { commits in
                        try delivery.hand(commits)
                    }
                let added = try await delivery.finish()
                return .stored(added: added, requests: result.requests, packBytes: result.packBytes)
            } catch {
                // The store is the engine's again only once no batch is left to write.
                let added = try? await delivery.finish()
                if withChanges, let error = error as? GitError, error.concernsTrees {
                    throw TreesFailed(error: error, added: added ?? 0)
                }
                throw error
            }
        }
    }

    /// The fetcher's deliveries, stored on a queue of their own while the
    /// fetcher reads the next batch out of the pack: one batch is stored while
    /// the next is read, no more, as reading is faster than storing and every
    /// batch held is memory.
    /// Batches are stored in the order they came, in transactions of
    /// `commitsPerTransaction`, so what is stored is always the closed history
    /// the fetcher promises. `batches`, `added` and `failure` are
    /// used only on `queue`; the engine awaits the bootstrap meanwhile, so the
    /// store is never used from two places at once.
    private final class Delivery: @unchecked Sendable {
        private let batches: any PageBatches
        private let repositoryID: Int64
        private let queue = DispatchQueue(label: "commits-mirror.git-store")
        private let slots = DispatchSemaphore(value: 1)
        private var added = 0
        private var failure: (any Error)?
        /// Waited once, after the first batch is stored and committed; then nil.
        private var pause: Duration?

        /// A store error, told apart from the fetch's own failures.
        struct StoreFailure: Error {
            let error: any Error
        }

        init(batches: any PageBatches, repositoryID: Int64, pause: Duration?) {
            self.batches = batches
            self.repositoryID = repositoryID
            self.pause = pause
        }

        /// Called on the fetcher's queue; waits while the previous batch is being stored.
        func hand(_ commits: [Commit]) throws {
            if let failure = queue.sync(execute: { failure }) { throw StoreFailure(error: failure) }
            slots.wait()
            queue.async { [self] in
                defer { slots.signal() }
                guard failure == nil else { return }
                do {
                    added += try batches.storeFromGit(commits, repositoryID: repositoryID)
                    if let pause {
                        self.pause = nil
                        try batches.commit()
                        Thread.sleep(forTimeInterval: Double(pause.components.seconds))
                    }
                } catch {
                    failure = error
                }
            }
        }

        /// Once every batch handed over is stored and committed (also when the
        /// fetch failed: what was handed over is a closed history): how many
        /// commits joined the repository.
        func finish() async throws -> Int {
            let outcome: Result<Int, StoreFailure> = await withCheckedContinuation { continuation in
                queue.async { [self] in
                    if failure == nil {
                        do { try batches.commit() } catch { failure = error }
                    }
                    continuation.resume(returning: failure.map { .failure(StoreFailure(error: $0)) } ?? .success(added))
                }
            }
            return try outcome.get()
        }
    }
}
