/// What history by path and the path reports ask of a store (`MirrorReading`
/// refines it): the stored paths, which commits changed them against which
/// parents, each repository's graph, and the counts behind `paths` and `status`.
public protocol PathReading: AnyObject {
    /// Per repository (by its current name), how many of its commits have their changed paths stored.
    func commitsWithPaths() throws -> [String: Int]
    /// Every changed path of the commits `scope` selects, with how often it
    /// changed (`PathActivity`, unranked, without authors); empty for a repository the store does not know.
    func pathActivity(_ scope: PathActivityScope) throws -> [PathActivity]
    /// Each of `pathIDs`' authors in `scope`: by path id, most commits first, at most `limit` each.
    func pathAuthors(_ pathIDs: [Int64], _ scope: PathActivityScope, limit: Int) throws -> [Int64: [PathAuthor]]

    /// Calls `body` with every path the stored changes name and the store's id for it.
    func forEachStoredPath(_ body: (_ id: Int64, _ path: [UInt8]) throws -> Void) throws
    /// For each commit that changed one of `pathIDs`, the positions of the
    /// parents it changed them against (0 also for a root commit).
    func parentsChanging(pathIDs: [Int64]) throws -> [Int64: Set<Int>]
    /// One repository's stored history from the heads of its branches (those
    /// `branches` selects, or all of them), for a path query's walk.
    func historyGraph(repositoryID: Int64, branches: BranchSelection?) throws -> HistoryGraph
}
