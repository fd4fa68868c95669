// The history behind a repository, abstracted so synthetic, dataset and git-repository histories
// serve alike.
// Commits are addressed by an Int "node" whose meaning belongs to the graph.

/// Everything needed to render one commit, already normalised the way the API shows it.
struct CommitRecord: Sendable {
    var sha: String
    var parents: [String]
    var tree: String
    var author: PersonRecord
    var committer: PersonRecord
    /// Trailing newlines already stripped.
    var message: String
}

struct PersonRecord: Sendable {
    var name: String
    var email: String
    /// UTC, whole seconds, `Z` suffix.
    var date: String
    /// The GitHub account the email belongs to; nil renders as JSON `null`.
    var user: SimUser?
}

/// Commits reachable from some start node, in `git log` order (newest first).
enum CommitListing: Sendable {
    /// upper, upper-1, …, lower (empty when upper < lower).
    case descending(upper: Int, lower: Int)
    case nodes(ArraySlice<Int32>)

    var count: Int {
        switch self {
        case .descending(let upper, let lower): max(0, upper - lower + 1)
        case .nodes(let nodes): nodes.count
        }
    }

    subscript(position: Int) -> Int {
        switch self {
        case .descending(let upper, _): upper - position
        case .nodes(let nodes): Int(nodes[nodes.startIndex + position])
        }
    }
}

protocol CommitGraph: Sendable {
    /// The default branch's head when the simulator starts.
    var initialHead: Int { get }
    /// The other branches and their heads when the simulator starts (a git repository's branches).
    var initialBranches: [String: Int] { get }
    /// The default branch's name when the history itself names one (a git repository's `HEAD`);
    /// nil leaves it to `SimRepository.defaultBranch`.
    var defaultBranchName: String? { get }
    /// The tags when the simulator starts, each peeled to a commit of the history (or to none, for
    /// a hostile tag).
    var initialTags: [GitTag] { get }
    func node(forSHA sha: some StringProtocol) -> Int?
    func sha(of node: Int) -> String
    /// Seconds since 1970 of the committer date.
    func committerTime(of node: Int) -> Int64
    func firstParent(of node: Int) -> Int?
    /// The commit whose first parent is `node` on the chain down from `initialHead`; nil at `initialHead`.
    func firstParentSuccessor(of node: Int) -> Int?
    /// Commits reachable from `start` with committer date in `since...until` (either bound optional).
    func listing(from start: Int, since: Int64?, until: Int64?) -> CommitListing
    func record(of node: Int) -> CommitRecord
    /// Whether rendered elements are worth caching (few commits, fixed text); otherwise render on demand.
    var cachesRenderedElements: Bool { get }
    /// The history as git objects, when the graph has them (a synthetic history rebuilds them, a git
    /// repository keeps git's; a dataset has none, only what REST showed of them).
    var gitObjects: (any GitObjectGraph)? { get }
}

extension CommitGraph {
    var initialBranches: [String: Int] { [:] }
    var defaultBranchName: String? { nil }
    var initialTags: [GitTag] { [] }
}

/// A history whose commits are real git objects: what the smart HTTP endpoints serve.
protocol GitObjectGraph: Sendable {
    /// Commit `node`'s object body, whose git name is `sha(of: node)`.
    func commitObject(of node: Int) -> [UInt8]
    func parents(of node: Int) -> [Int]
    var nodeOrder: GitNodeOrder { get }
}

/// How a graph numbers its commits, which tells a pack the one sweep over the nodes that meets
/// every child before its parents (and so finds all that a set of wants reaches in one pass).
enum GitNodeOrder: Sendable {
    /// A parent's node is lower than its children's, 0 a root: synthetic histories.
    case parentsFirst
    /// A parent's node is higher than its children's, as `git rev-list` lists them; `count` nodes.
    case childrenFirst(count: Int)
}
