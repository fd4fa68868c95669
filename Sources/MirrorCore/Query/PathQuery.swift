import Foundation

/// History by path (`git log -- PATH…`) over any store: the store hands over
/// its paths, which commits changed the matching ones against which parents,
/// and each repository's graph; git's history simplification walks them here,
/// once for every backend.
public enum PathQuery {
    /// What a path query found beside its commits.
    public struct Coverage: Sendable, Equatable {
        /// Commits of the walked histories whose paths are not stored yet: the
        /// answer cannot tell whether they belong in it.
        public var notCovered: Int
    }

    /// Narrows `filter` to the commits `git log` lists for `pathspec` in the
    /// histories of the repositories it selects (every one, or `filter.repository`),
    /// from the heads of their branches (those `filter.branches` selects).
    /// The other filters still apply on top, as git applies them to its walk.
    /// Within a revision range (`selection`), each repository's walk starts and
    /// stops where the range says, and repositories outside it are not walked.
    public static func restrict(
        _ filter: inout CommitFilter, to pathspec: Pathspec, simplification: HistorySimplification,
        within selection: RevisionQuery.Selection? = nil, in reader: any MirrorReading
    ) throws -> Coverage {
        var pathIDs: [Int64] = []
        try reader.forEachStoredPath { id, path in
            if pathspec.matches(path) { pathIDs.append(id) }
        }
        let touched = try reader.parentsChanging(pathIDs: pathIDs)
        let repositories =
            try reader.repositories(selectedBy: filter.repository)
        var commits: Set<Int64> = []
        var notCovered = 0
        for repository in repositories {
            let range = selection?.walks[repository.id]
            if selection != nil && range == nil { continue }
            let graph = try reader.historyGraph(repositoryID: repository.id, branches: filter.branches)
            let history = PathHistory.walk(graph, touched: touched, simplification: simplification, within: range)
            commits.formUnion(history.commits)
            notCovered += history.notCovered
        }
        filter.commitIDs = filter.commitIDs.map { $0.intersection(commits) } ?? commits
        return Coverage(notCovered: notCovered)
    }
}
