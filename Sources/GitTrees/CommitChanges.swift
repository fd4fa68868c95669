import GitHash

/// A path of a merge whose content differs from every parent's: what git's
/// combined diff (`git diff-tree --cc --raw`, `git log --cc --raw`) lists for
/// the merge; for a pathspec naming one file, whether git's default history
/// simplification keeps the merge (docs/GIT-TREES.md says what a directory needs).
public struct MergePath: Sendable, Hashable {
    public let path: [UInt8]
    /// What the merge holds there; nil when the merge deleted it.
    public let new: TreeChange.Version?
    /// The change from each parent to the merge, in the order of the parents.
    public let changes: [TreeChange]

    /// The line git's combined `--raw --no-abbrev` output prints for it: a colon
    /// per parent, each parent's mode, the merge's, the ids likewise, and the
    /// status against each parent.
    public var rawLine: String {
        let colons = String(repeating: ":", count: changes.count)
        let modes = (changes.map { $0.old?.kind.modeText ?? "000000" } + [new?.kind.modeText ?? "000000"]).joined(separator: " ")
        let ids = (changes.map { "\($0.old?.id ?? .zero)" } + ["\(new?.id ?? .zero)"]).joined(separator: " ")
        let letters = String(changes.map(\.status.letter))
        return "\(colons)\(modes) \(ids) \(letters)\t\(GitPathQuoting.quoted(path))"
    }
}

/// What one commit changed, from its tree and its parents' trees.
public struct CommitChanges: Sendable {
    /// Against the first parent, or the empty tree for a root commit:
    /// `git log --raw --no-renames --diff-merges=first-parent`.
    public let firstParent: [TreeChange]
    /// For a merge (two parents or more), the paths whose entry differs from
    /// every parent's, in the first-parent diff's order; empty otherwise.
    public let mergePaths: [MergePath]

    /// For a merge read with `everyParent`, the whole diff against each parent
    /// after the first, in the order of the parents: what git's history
    /// simplification asks of a merge for a pathspec naming a directory or a
    /// glob. Empty otherwise.
    public let otherParents: [[TreeChange]]

    /// A path differs from every parent exactly when it is a changed path of the
    /// diff against each parent, so the set is the intersection of those diffs.
    /// Without `everyParent`, each further parent's diff enters only directories
    /// holding a path still in the intersection, so a merge costs little more
    /// than its first parent.
    public init(
        tree: ObjectID, parentTrees: [ObjectID], limits: TreeLimits = .default, everyParent: Bool = false,
        lookup: TreeLookup
    ) throws {
        firstParent = try TreeDiff.changes(from: parentTrees.first, to: tree, limits: limits, lookup: lookup)
        guard parentTrees.count > 1 else {
            mergePaths = []
            otherParents = []
            return
        }
        var candidates = firstParent
        var others: [[[UInt8]: TreeChange]] = []
        var whole: [[TreeChange]] = []
        for parent in parentTrees.dropFirst() where everyParent || !candidates.isEmpty {
            let scope = everyParent ? nil : PathScope(paths: candidates.map(\.path))
            let changes = try TreeDiff.changes(from: parent, to: tree, limits: limits, within: scope, lookup: lookup)
            if everyParent { whole.append(changes) }
            let byPath = Dictionary(changes.map { ($0.path, $0) }, uniquingKeysWith: { first, _ in first })
            candidates = candidates.filter { byPath[$0.path] != nil }
            others.append(byPath)
        }
        otherParents = whole
        mergePaths = candidates.map { change in
            MergePath(path: change.path, new: change.new, changes: [change] + others.compactMap { $0[change.path] })
        }
    }
}
