import GitHash
import GitTrees
import MirrorModel

/// A commit read with its trees, and the paths it changed; only the git layer makes them.
public struct ChangedCommit: Sendable {
    public let commit: Commit
    /// Nil when the server sent no trees at all (see `fetchChanges`).
    public let changes: CommitChanges?

    /// The commit as the stores keep it: its diff against each parent.
    public var commitWithChanges: Commit {
        var stored = commit
        guard let changes else { return stored }
        let againstEach = [changes.firstParent] + changes.otherParents
        stored.changes = againstEach.enumerated().flatMap { parent, diff in
            diff.map { FileChange($0, parent: parent) }
        }
        return stored
    }
}

extension FileChange {
    init(_ change: TreeChange, parent: Int) {
        self.init(path: change.path, parent: parent, old: change.old.map(Side.init), new: change.new.map(Side.init))
    }
}

extension FileChange.Side {
    init(_ version: TreeChange.Version) {
        self.init(mode: UInt32(version.kind.modeText, radix: 8) ?? 0, objectID: version.id.hex)
    }
}

extension GitHistoryFetcher {
    /// Fetches `branch` and hands its commits to `deliver` in batches, every
    /// commit after its parents, so the batches stored so far always form a
    /// closed history. `deliver` runs off the cooperative pool and is never
    /// called for a pack that fails a check. With `expectedTip`, a branch whose
    /// tip is another commit fails before the pack is fetched.
    /// - Throws: `GitError`, or what `deliver` threw.
    public func fetchHistory(
        branch: String, expectedTip: String? = nil, deliver: @escaping @Sendable ([Commit]) throws -> Void
    ) async throws -> Result {
        try await fetchHistory(branches: [branch], expectedTips: expectedTip.map { [branch: $0] } ?? [:], deliver: deliver)
    }

    /// Several branches in one pack (docs/BRANCHES.md): one `ls-refs` naming each,
    /// one `fetch` wanting every tip, each commit handed on once, parents first.
    /// A branch missing, or whose tip is not its `expectedTips` entry, fails
    /// before the pack is fetched.
    /// - Throws: `GitError`, or what `deliver` threw.
    public func fetchHistory(
        branches: [String], expectedTips: [String: String] = [:], deliver: @escaping @Sendable ([Commit]) throws -> Void
    ) async throws -> Result {
        try await fetch(branches: branches, expectedTips: expectedTips, contents: .commits) { commits, _ in try deliver(commits) }
    }

    /// The same fetch with the commits' trees (`filter blob:none`: no file
    /// contents), each commit handed on with the paths it changed, every tree
    /// verified as it is read (docs/GIT-TREES.md); from a server that sends no
    /// tree at all, each commit without changes. A tree missing or failing a
    /// check ends the fetch after the batches before it, which stay a closed
    /// history with their changes.
    /// - Throws: `GitError`, or what `deliver` threw.
    public func fetchChanges(
        branches: [String], expectedTips: [String: String] = [:], deliver: @escaping @Sendable ([ChangedCommit]) throws -> Void
    ) async throws -> Result {
        try await fetch(branches: branches, expectedTips: expectedTips, contents: .commitsAndTrees) { commits, changes in
            try deliver(
                commits.indices.map { ChangedCommit(commit: commits[$0], changes: changes.isEmpty ? nil : changes[$0]) })
        }
    }

    /// What a fetch asks the server for.
    enum PackContents {
        /// `filter tree:0`: what the history needs.
        case commits
        /// `filter blob:none`: also what each commit changed.
        case commitsAndTrees

        var filter: String { self == .commits ? "tree:0" : "blob:none" }
    }
}

extension FileChange {
    /// The path as git prints it with `core.quotePath` on (its default).
    public var quotedPath: String { GitPathText.quoted(path) }
}

/// Paths as git prints them, for the executables (GitTrees is the core's).
public enum GitPathText {
    /// `path` as git prints it with `core.quotePath` on (its default).
    public static func quoted(_ path: [UInt8]) -> String { GitPathQuoting.quoted(path) }
}
