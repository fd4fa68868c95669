import MirrorCore

/// The revisions `query` takes before its paths, as `git log` takes them.
enum RevisionArguments {
    /// `arguments` split into the revisions that lead them and the paths after:
    /// an argument written as a revision (`A..B`, `^A`, `B~2`) or naming a tag,
    /// branch or stored commit is one, and the first that is neither starts the paths.
    static func split(
        _ arguments: [String], filter: CommitFilter, in mirror: any MirrorReading
    ) throws -> (revisions: [String], paths: [String]) {
        var revisions: [String] = []
        for (index, argument) in arguments.enumerated() {
            let isRevision =
                try RevisionRange.isWrittenAsRevision(argument)
                || RevisionQuery.isRevisionName(argument, filter: filter, in: mirror)
            guard isRevision else { return (revisions, Array(arguments[index...])) }
            revisions.append(argument)
        }
        return (revisions, [])
    }

    /// Narrows `filter` to what `revisions` select (nothing to do without any).
    static func restrict(
        _ filter: inout CommitFilter, to revisions: [String], in mirror: any MirrorReading
    ) throws -> RevisionQuery.Selection? {
        guard !revisions.isEmpty else { return nil }
        return try RevisionQuery.restrict(&filter, to: try RevisionRange.parse(revisions), in: mirror)
    }
}
