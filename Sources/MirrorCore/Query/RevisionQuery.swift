import Foundation

/// Revision ranges (`git log A..B`, `A...B`, `^A B`, `B~3`) over any store: the
/// store resolves names and hands over each repository's graph; the range is
/// walked here, once for every backend.
public enum RevisionQuery {
    /// What a range selected, for a path query that walks within it.
    public struct Selection: Sendable, Equatable {
        /// Per repository id, the commits the range selects there and where their walk starts.
        public var walks: [Int64: RevisionWalk]
    }

    /// Narrows `filter` to the commits `range` selects in each repository it
    /// searches (`filter.repository`, or every one). A repository where a name
    /// means nothing is left out; a name meaning nothing anywhere is an error.
    public static func restrict(
        _ filter: inout CommitFilter, to range: RevisionRange, in reader: any MirrorReading
    ) throws -> Selection {
        let repositories =
            try reader.repositories(selectedBy: filter.repository)
        var walks: [Int64: RevisionWalk] = [:]
        var firstUnknown: RevisionError?
        for repository in repositories {
            let graph = try reader.historyGraph(repositoryID: repository.id, branches: nil)
            do {
                walks[repository.id] = try RevisionWalk.evaluate(range, in: graph) { revision in
                    try commit(named: revision.name, in: repository, reader: reader)
                }
            } catch let error as RevisionError {
                guard case .unknown = error else { throw error }
                firstUnknown = firstUnknown ?? error
            }
        }
        if walks.isEmpty { throw firstUnknown ?? RevisionError.unknown(range.revisions.first?.name ?? "HEAD") }
        let selected = walks.values.reduce(into: Set<Int64>()) { $0.formUnion($1.commits) }
        filter.commitIDs = filter.commitIDs.map { $0.intersection(selected) } ?? selected
        return Selection(walks: walks)
    }

    /// Narrows `filter` to what each repository's own range selects there (`ranges`, by
    /// repository id): the commits a pull request brought into the repository that merged it.
    public static func restrict(
        _ filter: inout CommitFilter, toRanges ranges: [Int64: RevisionRange], in reader: any MirrorReading
    ) throws -> Selection {
        var walks: [Int64: RevisionWalk] = [:]
        for repository in try reader.repositories(selectedBy: filter.repository) {
            guard let range = ranges[repository.id] else { continue }
            let graph = try reader.historyGraph(repositoryID: repository.id, branches: nil)
            walks[repository.id] = try RevisionWalk.evaluate(range, in: graph) { revision in
                try commit(named: revision.name, in: repository, reader: reader)
            }
        }
        let selected = walks.values.reduce(into: Set<Int64>()) { $0.formUnion($1.commits) }
        filter.commitIDs = filter.commitIDs.map { $0.intersection(selected) } ?? selected
        return Selection(walks: walks)
    }

    /// Whether `name` names a tag, a branch or a stored commit of any repository
    /// `filter` searches: a positional argument that does is a revision, not a path.
    public static func isRevisionName(_ name: String, filter: CommitFilter, in reader: any MirrorReading) throws -> Bool {
        guard name == "HEAD" || name == "@" || Revision.isPlausibleName(name[...]) else { return false }
        let repositories = try reader.repositories(selectedBy: filter.repository)
        if name == "HEAD" || name == "@" { return !repositories.isEmpty }
        for repository in repositories {
            let targets = try reader.revisionTargets(name, repositoryID: repository.id)
            if targets.tag != nil || targets.branch != nil || !targets.commits.isEmpty { return true }
        }
        return false
    }

    /// The commit a name stands for in one repository, in git's precedence: a
    /// tag, a branch, then a sha prefix (one commit, or the candidates are named).
    static func commit(named name: String, in repository: StoredRepository, reader: any MirrorReading) throws -> Int64 {
        if name == "HEAD" {
            guard let branch = repository.defaultBranch,
                let head = try reader.revisionTargets(branch, repositoryID: repository.id).branch
            else { throw RevisionError.unknown(name) }
            return head
        }
        let targets = try reader.revisionTargets(name, repositoryID: repository.id)
        if let tag = targets.tag {
            guard let tag else { throw RevisionError.notMirrored(name) }
            return tag
        }
        if let branch = targets.branch { return branch }
        switch targets.commits.count {
        case 0: throw RevisionError.unknown(name)
        case 1: return targets.commits[0].id
        default: throw RevisionError.ambiguous(name, candidates: targets.commits.map { String($0.sha.prefix(12)) })
        }
    }
}
