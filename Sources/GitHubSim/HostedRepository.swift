// A repository being served: its fixed history plus what tests change at run time
// (name, head, branches, tags, redirect).

import Synchronization

public struct SimulatorError: Error, CustomStringConvertible, Sendable {
    public var description: String

    static func unknownRepository(_ owner: String, _ name: String) -> SimulatorError {
        SimulatorError(description: "no repository \(owner)/\(name) in the simulator")
    }
    static func emptyRepository(_ owner: String, _ name: String) -> SimulatorError {
        SimulatorError(description: "repository \(owner)/\(name) has no commits")
    }
}

final class HostedRepository: Sendable {
    struct State: Sendable {
        var owner: String
        var name: String
        /// Lowercased `owner/name` pairs this repository was known by; they answer 301.
        var formerNames: Set<String> = []
        /// When set, every request for this repository answers 301 to this base URL.
        var redirectBaseURL: String?
        /// Current head of the default branch; nil for an empty repository.
        var head: Int?
        /// The other branches and their heads (the default branch is `head`).
        var branches: [String: Int] = [:]
        /// The tags by name; the control endpoint adds, moves and deletes them.
        var tags: [String: GitTag] = [:]

        /// Every tag, sorted by name as git sorts refs.
        var sortedTags: [GitTag] {
            tags.values.sorted { Array($0.name.utf8).lexicographicallyPrecedes(Array($1.name.utf8)) }
        }

        /// Every branch with its head, sorted by name as GitHub lists them; none when empty.
        var branchHeads: [(name: String, node: Int)] {
            var all = branches.map { (name: $0.key, node: $0.value) }
            if let head { all.append((name: defaultBranch, node: head)) }
            return all.sorted { Array($0.name.utf8).lexicographicallyPrecedes(Array($1.name.utf8)) }
        }
        /// Copied from the repository so a snapshot lists its branches alone.
        var defaultBranch: String

        var fullName: String { "\(owner)/\(name)" }
    }

    let id: Int
    /// Renamed at run time by `renameDefaultBranch` only.
    var defaultBranch: String { state.withLock { $0.defaultBranch } }
    let fork: Bool
    let archived: Bool
    let isPrivate: Bool
    /// nil for an empty repository.
    let graph: (any CommitGraph)?
    /// Where a repository served from git's own objects is on disk, for the packs only git can make.
    let gitRepositoryPath: String?
    let elementCache: ElementCache?
    /// Its pull requests, derived from the history on first use.
    let pulls = PullRequestBook()
    private let state: Mutex<State>

    init(_ repository: SimRepository) throws {
        id = repository.id
        fork = repository.fork
        archived = repository.archived
        isPrivate = repository.isPrivate
        gitRepositoryPath = if case .gitRepository(let path) = repository.source { path } else { nil }
        switch repository.source {
        case .empty:
            graph = nil
        case .synthetic(let spec):
            let synthetic = spec.commits > 0 ? SyntheticRepository(spec: spec) : nil
            // Every sha is computed before the repository is served, so no request pays for it.
            synthetic?.prepareObjectNames()
            graph = synthetic
        case .dataset(let path):
            graph = try DatasetGraph.load(path: path)
        case .gitRepository(let path):
            graph = try GitRepositoryGraph.load(path: path)
        }
        // A git repository's HEAD names its default branch; the other sources take the configured one.
        let defaultBranch = graph?.defaultBranchName ?? repository.defaultBranch
        elementCache = graph.flatMap { $0.cachesRenderedElements ? ElementCache() : nil }
        state = Mutex(
            State(
                owner: repository.owner, name: repository.name, head: graph?.initialHead, branches: graph?.initialBranches ?? [:],
                tags: Dictionary(graph?.initialTags.map { ($0.name, $0) } ?? [], uniquingKeysWith: { $1 }),
                defaultBranch: defaultBranch))
    }

    var snapshot: State { state.withLock { $0 } }

    /// Changes the state under its lock (the tag operations, in HostedRepository+Tags.swift).
    func update<Result>(_ change: (inout State) throws -> Result) rethrows -> Result {
        try state.withLock { try change(&$0) }
    }

    /// The node a `sha` parameter or `{ref}` path names: a branch (also as `heads/…` or
    /// `refs/heads/…`) or a full commit sha. nil when unknown.
    func resolve(ref: String?, head: Int, branches: [String: Int] = [:]) -> Int? {
        guard let ref, !ref.isEmpty else { return head }
        var name = Substring(ref)
        if name.hasPrefix("refs/heads/") {
            name = name.dropFirst(11)
        } else if name.hasPrefix("heads/") {
            name = name.dropFirst(6)
        }
        if name == defaultBranch { return head }
        if let node = branches[String(name)] { return node }
        guard Hex.isFullSHA(ref) else { return nil }
        return graph?.node(forSHA: ref)
    }

    /// Moves the head `steps` first-parent steps back (positive) or forward toward the original
    /// head (negative), clamping at either end. Returns the new head's sha.
    func moveHead(by steps: Int) throws -> String {
        try state.withLock { state in
            guard let graph, var head = state.head else { throw SimulatorError.emptyRepository(state.owner, state.name) }
            if steps >= 0 {
                for _ in 0..<steps {
                    guard let parent = graph.firstParent(of: head) else { break }
                    head = parent
                }
            } else {
                for _ in 0..<(-steps) {
                    guard let child = graph.firstParentSuccessor(of: head) else { break }
                    head = child
                }
            }
            state.head = head
            return graph.sha(of: head)
        }
    }

    // MARK: - Other branches

    /// Where a branch pointed before a change (`nil`: it did not exist) and points after it.
    struct BranchMove {
        var before: String?
        var after: String
    }

    /// Points `branch` at `sha` (creating it, moving it, or force-pushing it anywhere in the
    /// history). The default branch moves through `moveHead` only.
    func setBranch(_ branch: String, to sha: String) throws -> BranchMove {
        try state.withLock { state in
            guard let graph, state.head != nil else { throw SimulatorError.emptyRepository(state.owner, state.name) }
            guard branch != state.defaultBranch else { throw SimulatorError(description: "\(branch) is the default branch: move its head") }
            guard let node = graph.node(forSHA: sha) else {
                throw SimulatorError(description: "no commit \(sha) in \(state.fullName)")
            }
            let before = state.branches[branch].map(graph.sha(of:))
            state.branches[branch] = node
            return BranchMove(before: before, after: graph.sha(of: node))
        }
    }

    /// Moves `branch` `steps` first-parent steps back (positive) or forward (negative), as
    /// `moveHead` moves the default branch; a branch that does not exist starts at the default head.
    func moveBranch(_ branch: String, by steps: Int) throws -> BranchMove {
        try state.withLock { state in
            guard let graph, let defaultHead = state.head else { throw SimulatorError.emptyRepository(state.owner, state.name) }
            guard branch != state.defaultBranch else { throw SimulatorError(description: "\(branch) is the default branch: move its head") }
            var node = state.branches[branch] ?? defaultHead
            for _ in 0..<abs(steps) {
                guard let next = steps > 0 ? graph.firstParent(of: node) : graph.firstParentSuccessor(of: node) else { break }
                node = next
            }
            let before = state.branches[branch].map(graph.sha(of:))
            state.branches[branch] = node
            return BranchMove(before: before, after: graph.sha(of: node))
        }
    }

    /// Deletes `branch` (never the default branch); returns the sha it pointed at.
    func deleteBranch(_ branch: String) throws -> String {
        try state.withLock { state in
            guard branch != state.defaultBranch else { throw SimulatorError(description: "\(branch) is the default branch") }
            guard let graph, let node = state.branches.removeValue(forKey: branch) else {
                throw SimulatorError(description: "no branch \(branch) in \(state.fullName)")
            }
            return graph.sha(of: node)
        }
    }

    /// Renames the default branch, as GitHub's branch rename does: its head and history stay,
    /// the old name is no branch any more.
    func renameDefaultBranch(to branch: String) throws {
        try state.withLock { state in
            guard state.branches[branch] == nil, branch != state.defaultBranch else {
                throw SimulatorError(description: "\(state.fullName) has a branch \(branch) already")
            }
            state.defaultBranch = branch
        }
    }

    func rename(toOwner owner: String, name: String) {
        state.withLock { state in
            state.formerNames.insert(state.fullName.lowercased())
            state.owner = owner
            state.name = name
            state.formerNames.remove(state.fullName.lowercased())
        }
    }

    func redirect(toBaseURL base: String?) {
        state.withLock { $0.redirectBaseURL = base }
    }
}
