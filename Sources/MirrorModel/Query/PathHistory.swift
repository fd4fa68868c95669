import Foundation

/// Which commits a path query lists of the history it walks, as git's history
/// simplification options name them (git-log(1), "History Simplification").
public enum HistorySimplification: Sendable, Equatable {
    /// Git's default: a merge that is TREESAME to a parent (changes none of the
    /// paths against it) is followed down that parent alone and not listed.
    case simplified
    /// `--full-history` without parent rewriting: every parent is followed, and
    /// a merge is listed unless it is TREESAME to every parent.
    case fullHistory
    /// `--first-parent`: only first parents are followed, and each commit is
    /// judged against its first parent alone.
    case firstParent
}

/// A repository's stored history as a path query walks it, in the store's own
/// commit ids (meaningful only to the reader that gave them).
public struct HistoryGraph: Sendable, Equatable {
    /// Where the walk starts: the heads of the branches the query selects.
    public var tips: [Int64]
    /// Each stored commit's parents in order, first parent first; nil for a
    /// parent the store does not hold.
    public var parents: [Int64: [Int64?]]
    /// Stored commits whose changed paths are not stored yet.
    public var withoutChanges: Set<Int64>

    public init(tips: [Int64], parents: [Int64: [Int64?]], withoutChanges: Set<Int64>) {
        self.tips = tips
        self.parents = parents
        self.withoutChanges = withoutChanges
    }
}

/// The commits of a walked history that a pathspec's answer lists.
public struct PathHistory: Sendable, Equatable {
    /// The commits listed, as the store's ids, in no particular order.
    public var commits: Set<Int64>
    /// Commits the walk reached whose paths are not stored yet: the answer
    /// cannot tell whether they belong in it, and counts them instead.
    public var notCovered: Int

    public init(commits: Set<Int64>, notCovered: Int) {
        self.commits = commits
        self.notCovered = notCovered
    }

    /// Walks `graph` from its tips as git's revision walk does with a
    /// pathspec. `touched[c]` holds the positions of the parents against which
    /// commit `c` changed a path the pathspec matches (position 0 also for a
    /// root commit, against the empty tree). A commit whose paths are not
    /// stored counts as changing nothing, and is counted in `notCovered`.
    /// Within a revision range, `range` says what the walk leaves out.
    public static func walk(
        _ graph: HistoryGraph, touched: [Int64: Set<Int>], simplification: HistorySimplification,
        within range: RevisionWalk? = nil
    ) -> PathHistory {
        var listed: Set<Int64> = []
        var visited: Set<Int64> = []
        var notCovered = 0
        var pending = range?.tips ?? graph.tips
        let excluded = range?.excluded ?? []
        // Git's "relevant" parents: those the range keeps, and the excluded revisions themselves.
        let relevance = Relevance(excluded: excluded, bottoms: range?.bottoms ?? [])
        while let commit = pending.popLast() {
            guard !excluded.contains(commit), visited.insert(commit).inserted, let parents = graph.parents[commit]
            else { continue }
            if graph.withoutChanges.contains(commit) { notCovered += 1 }
            let changed = touched[commit] ?? []
            let (listedHere, followed) = step(parents: parents, changed: changed, simplification, relevance)
            if listedHere { listed.insert(commit) }
            for parent in followed.reversed() {
                if let parent, !visited.contains(parent), !excluded.contains(parent) { pending.append(parent) }
            }
        }
        return PathHistory(commits: listed, notCovered: notCovered)
    }

    /// Which parents of a merge count when a range leaves some out.
    struct Relevance {
        var excluded: Set<Int64>
        var bottoms: Set<Int64>

        func isRelevant(_ parent: Int64?) -> Bool {
            guard let parent else { return true }
            return !excluded.contains(parent) || bottoms.contains(parent)
        }
    }

    /// Whether one commit is listed, and which of its parents the walk follows.
    private static func step(
        parents: [Int64?], changed: Set<Int>, _ simplification: HistorySimplification, _ relevance: Relevance
    ) -> (listed: Bool, followed: [Int64?]) {
        guard parents.count > 1 else { return (changed.contains(0), parents) }
        // A merge is judged against its relevant parents when it has any, as git's TREESAME is.
        let relevant = parents.indices.filter { relevance.isRelevant(parents[$0]) }
        let judged = relevant.isEmpty ? Array(parents.indices) : relevant
        switch simplification {
        case .firstParent:
            return (changed.contains(0), [parents[0]])
        case .fullHistory:
            return (judged.contains { changed.contains($0) }, parents)
        case .simplified:
            // The first relevant parent the merge is TREESAME to is the only one followed.
            if let same = parents.indices.first(where: { !changed.contains($0) && relevance.isRelevant(parents[$0]) }) {
                return (false, [parents[same]])
            }
            return (judged.contains { changed.contains($0) }, parents)
        }
    }
}
