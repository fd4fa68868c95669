// Public description of what a simulator serves and how it behaves.

/// Parameters of a generated history; see `SyntheticRepository` for the shape.
public struct SyntheticSpec: Sendable, Hashable {
    /// Number of commits; 0 makes an empty repository.
    public var commits: Int
    /// Size of the author pool.
    public var authors: Int = 200
    /// Every `mergeEvery`-th commit is a merge of a one-commit side branch; 0 = linear history.
    /// 1 is treated as 2, because a merge needs a side commit between two first-parent commits.
    public var mergeEvery: Int = 8
    /// How many merges one side branch feeds before a new one starts from the
    /// first-parent line: 1 = one-commit side branches; more = long-lived ones
    /// (each side commit's parent is the side commit of the previous merge).
    public var sideBranchMerges: Int = 1
    /// Seed for every generated value (shas, people, dates, messages).
    public var seed: UInt64 = 1
    /// The commit (by index, 0 the root) whose git object writes its author line
    /// without `<…>` around the email, as some imported histories do; its REST
    /// element still shows the real name, email and date, as GitHub's does.
    public var malformedAuthorLineAt: Int?
    /// A release tag every `tagEvery` first-parent commits (`SyntheticRepository+Tags.swift`);
    /// 0 = no tags.
    public var tagEvery: Int = 0

    public init(
        commits: Int, authors: Int = 200, mergeEvery: Int = 8, sideBranchMerges: Int = 1, seed: UInt64 = 1, tagEvery: Int = 0
    ) {
        self.commits = commits
        self.tagEvery = tagEvery
        self.authors = authors
        self.mergeEvery = mergeEvery
        self.sideBranchMerges = sideBranchMerges
        self.seed = seed
    }

    /// The shapes `github-sim --synthetic` names.
    public enum Shape: String, CaseIterable, Sendable {
        /// A merge every 8 commits, of a one-commit side branch.
        case simple
        /// Shaped like a busy real history: a quarter of the commits are merges,
        /// and side branches live for 16 merges each.
        case realistic
    }

    public init(commits: Int, shape: Shape, seed: UInt64 = 1) {
        switch shape {
        case .simple: self.init(commits: commits, seed: seed)
        case .realistic: self.init(commits: commits, mergeEvery: 4, sideBranchMerges: 16, seed: seed)
        }
    }
}

/// Where a repository's history comes from.
public enum RepositorySource: Sendable {
    /// A JSON Lines file (optionally gzip'd), newest commit first. It has no git objects: its git
    /// endpoint answers 404.
    case dataset(path: String)
    /// A real git repository on disk (bare or not), read with the `git` found on `PATH` when the
    /// simulator is made: every commit reachable from one of its branches, served over REST and over
    /// git's smart HTTP (its raw commit objects, so every sha is git's). Every branch is a branch of
    /// the simulated repository, and the default branch is the one its `HEAD` names (else `main`,
    /// else the only branch), whatever `SimRepository.defaultBranch` says. A path that is not a
    /// repository, a branch that is not a commit, or no branches throw a `GitRepositoryError`.
    case gitRepository(path: String)
    case synthetic(SyntheticSpec)
    /// A repository without commits: the list endpoint answers 409.
    case empty
}

/// One repository served by the simulator.
public struct SimRepository: Sendable {
    public var owner: String
    public var name: String
    /// GitHub's numeric repository id, used in `/repositories/{id}` and in `Link` URLs.
    public var id: Int
    /// Ignored for a `.gitRepository` source, whose `HEAD` names its default branch.
    public var defaultBranch: String = "main"
    public var source: RepositorySource
    /// Rendered as `fork` (owner listings can leave forks out).
    public var fork = false
    /// Rendered as `archived`.
    public var archived = false
    /// Seen only with a token: anonymous API requests get 404, git requests 401.
    public var isPrivate = false

    public init(
        owner: String, name: String, id: Int, defaultBranch: String = "main", source: RepositorySource,
        fork: Bool = false, archived: Bool = false, isPrivate: Bool = false
    ) {
        self.owner = owner
        self.name = name
        self.id = id
        self.defaultBranch = defaultBranch
        self.source = source
        self.fork = fork
        self.archived = archived
        self.isPrivate = isPrivate
    }

    public var fullName: String { "\(owner)/\(name)" }
}

/// Server-wide settings.
public struct SimConfiguration: Sendable {
    public var host: String = "127.0.0.1"
    /// 0 asks the OS for an ephemeral port; read `GitHubSimulator.baseURL` after `start()`.
    public var port: Int = 0
    /// nil accepts any token; otherwise other tokens get 401 "Bad credentials".
    public var validTokens: Set<String>? = nil
    public var authenticatedLimit: Int = 5000
    public var unauthenticatedLimit: Int = 60
    public var rateLimitWindow: Duration = .seconds(3600)
    public var faults: FaultPlan = .init()
    /// Added to every response, API and git alike (not the control endpoints): a network's round trip.
    public var latency: Duration = .zero
    /// The host `clone_url` names instead of the API's (e.g. `localhost` for an API on
    /// 127.0.0.1): the same server under another name, as a clone host a client must
    /// not send the API's token to.
    public var cloneHost: String?
    /// Another git server `clone_url` points to (as `<cloneServer>/<owner>/<name>.git`), e.g. a
    /// real `git http-backend` serving the same repositories, so git reads are timed against git's own.
    public var cloneServer: String?
    /// Gzip response bodies when the request's `Accept-Encoding` allows it, as api.github.com does.
    public var compressResponses: Bool = true
    /// Owners that are user accounts: `/orgs/{owner}/repos` answers 404 for them, as GitHub
    /// does, and only `/users/{owner}/repos` lists their repositories. Every other owner is an
    /// organization (lowercased names).
    public var userAccounts: Set<String> = []
    /// App mode: GitHub App JWTs, installation tokens and their endpoints (docs/GITHUB-APP.md).
    public var app: SimApp?
    /// Deliver a signed `push` webhook here whenever a head moves (and `ping` on start).
    public var webhook: SimWebhook?

    public init() {}
}
