/// A revision range evaluated over one repository's stored graph, in the
/// store's commit ids: which commits it selects, as `git rev-list` does.
public struct RevisionWalk: Sendable, Equatable {
    /// The commits the range selects.
    public var commits: Set<Int64>
    /// Where a walk of the selected commits starts: those no selected commit has as a parent.
    public var tips: [Int64]
    /// What the range leaves out: every commit an excluded revision reaches.
    public var excluded: Set<Int64>
    /// The excluded revisions' own commits (git's BOTTOM commits).
    public var bottoms: Set<Int64>

    /// Evaluates `range` over `graph.parents`, each revision's name resolved by
    /// `resolve` (the commit a tag, branch, sha or `HEAD` stands for).
    public static func evaluate(
        _ range: RevisionRange, in graph: HistoryGraph, resolve: (Revision) throws -> Int64
    ) throws -> RevisionWalk {
        var included: [Int64] = []
        var excludedTips: [Int64] = []
        var symmetric: Set<Int64> = []
        for term in range.terms {
            switch term {
            case .include(let revision): included.append(try commit(of: revision, in: graph, resolve: resolve))
            case .exclude(let revision): excludedTips.append(try commit(of: revision, in: graph, resolve: resolve))
            case .symmetric(let left, let right):
                let leftReach = reach(from: [try commit(of: left, in: graph, resolve: resolve)], in: graph)
                let rightReach = reach(from: [try commit(of: right, in: graph, resolve: resolve)], in: graph)
                symmetric.formUnion(leftReach.symmetricDifference(rightReach))
            }
        }
        let excluded = reach(from: excludedTips, in: graph)
        let commits = reach(from: included, in: graph, stoppingAt: excluded).union(symmetric.subtracting(excluded))
        // A walk of the selection starts at its newest commits: every commit no selected commit names as a parent.
        let named = Set(commits.flatMap { graph.parents[$0]?.compactMap { $0 } ?? [] })
        return RevisionWalk(
            commits: commits, tips: commits.filter { !named.contains($0) }.sorted(), excluded: excluded,
            bottoms: Set(excludedTips))
    }

    /// The commit `revision` names: its name's, then each `^N`/`~N` step taken.
    public static func commit(
        of revision: Revision, in graph: HistoryGraph, resolve: (Revision) throws -> Int64
    ) throws -> Int64 {
        var commit = try resolve(revision)
        for step in revision.steps {
            let (position, count) =
                switch step {
                case .parent(let n): (n - 1, n == 0 ? 0 : 1)
                case .ancestor(let n): (0, n)
                }
            for _ in 0..<count {
                guard let parents = graph.parents[commit], parents.indices.contains(position) else {
                    throw RevisionError.noSuchAncestor(revision.description)
                }
                guard let parent = parents[position] else { throw RevisionError.notMirrored(revision.description) }
                commit = parent
            }
        }
        return commit
    }

    /// Every commit `tips` reach through stored parents, themselves included,
    /// not entering `stop`.
    static func reach(from tips: [Int64], in graph: HistoryGraph, stoppingAt stop: Set<Int64> = []) -> Set<Int64> {
        var seen: Set<Int64> = []
        var pending = tips.filter { !stop.contains($0) }
        while let commit = pending.popLast() {
            guard seen.insert(commit).inserted else { continue }
            for case let parent? in graph.parents[commit] ?? [] where !seen.contains(parent) && !stop.contains(parent) {
                pending.append(parent)
            }
        }
        return seen
    }
}
