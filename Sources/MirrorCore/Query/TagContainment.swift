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
        tags.map { (tag: $0, date: $0.creatorDate.flatMap(ISO8601Timestamp.parse)) }
            .sorted { precedes(($0.date, $0.tag.tag.name), ($1.date, $1.tag.tag.name)) }.map(\.tag)
    }

    /// Git's creatordate order: the older date first, a tag without one last, then by name.
    static func precedes(_ left: (date: Date?, name: String), _ right: (date: Date?, name: String)) -> Bool {
        switch (left.date, right.date) {
        case (let l?, let r?) where l != r: l < r
        case (nil, _?): false
        case (_?, nil): true
        default: left.name.utf8.lexicographicallyPrecedes(right.name.utf8)
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

extension TagContainment {
    /// A current tag as the containment table is computed from it.
    public struct Tip: Sendable, Equatable {
        public var tagID: Int64
        public var name: String
        public var commitID: Int64
        public var creatorDate: Date?

        public init(tagID: Int64, name: String, commitID: Int64, creatorDate: Date?) {
            self.tagID = tagID
            self.name = name
            self.commitID = commitID
            self.creatorDate = creatorDate
        }
    }

    /// For every commit some tag reaches, the earliest such tag in git's
    /// `--sort=creatordate` order: tags are taken oldest first and each marks the
    /// ancestors no earlier tag marked. A commit an earlier tag marked has all its
    /// ancestors marked already, so each commit is visited once.
    public static func earliestTags(of tips: [Tip], in graph: HistoryGraph) -> [Int64: Int64] {
        let ordered = tips.sorted { precedes(($0.creatorDate, $0.name), ($1.creatorDate, $1.name)) }
        var earliest: [Int64: Int64] = [:]
        for tip in ordered where earliest[tip.commitID] == nil && graph.parents[tip.commitID] != nil {
            earliest[tip.commitID] = tip.tagID
            var pending = [tip.commitID]
            while let commit = pending.popLast() {
                for case let parent? in graph.parents[commit] ?? [] where earliest[parent] == nil {
                    earliest[parent] = tip.tagID
                    pending.append(parent)
                }
            }
        }
        return earliest
    }
}
