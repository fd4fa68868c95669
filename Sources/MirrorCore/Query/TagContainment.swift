import Foundation

/// Which tags contain a commit (`git tag --contains`), over any store: the
/// store hands over a repository's graph and tags; the descendants are walked here.
public enum TagContainment {
    /// The current tags of the repository whose commit reaches `commitID`
    /// (itself included), earliest creator date first, as
    /// `git tag --contains SHA --sort=creatordate` lists them (ties by name).
    public static func tags(
        containing commitID: Int64, repositoryID: Int64, in reader: any MirrorReading
    ) throws -> [StoredTag] {
        let tags = try reader.tags(repositoryID: repositoryID, includingEnded: false)
        guard !tags.isEmpty else { return [] }
        let graph = try reader.historyGraph(repositoryID: repositoryID, branches: nil)
        let reaching = descendants(of: commitID, in: graph)
        return sortedByCreatorDate(tags.filter { $0.commitID.map(reaching.contains) ?? false })
    }

    /// Tags in git's `--sort=creatordate` order: oldest first, a tag without a date last, ties by name.
    public static func sortedByCreatorDate(_ tags: [StoredTag]) -> [StoredTag] {
        tags.sorted { left, right in
            switch (left.creatorDate.flatMap(ISO8601Timestamp.parse), right.creatorDate.flatMap(ISO8601Timestamp.parse)) {
            case (let l?, let r?) where l != r: l < r
            case (nil, _?): false
            case (_?, nil): true
            default: left.tag.name.utf8.lexicographicallyPrecedes(right.tag.name.utf8)
            }
        }
    }

    /// `commitID` and every stored commit that has it as an ancestor.
    static func descendants(of commitID: Int64, in graph: HistoryGraph) -> Set<Int64> {
        var children: [Int64: [Int64]] = [:]
        for (commit, parents) in graph.parents {
            for case let parent? in parents { children[parent, default: []].append(commit) }
        }
        var seen: Set<Int64> = [commitID]
        var pending = [commitID]
        while let commit = pending.popLast() {
            for child in children[commit] ?? [] where seen.insert(child).inserted { pending.append(child) }
        }
        return seen
    }
}
