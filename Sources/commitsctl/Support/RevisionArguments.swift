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
            guard isRevision else {
                let paths = Array(arguments[index...])
                try expectStoredPaths(paths, in: mirror)
                return (revisions, paths)
            }
            revisions.append(argument)
        }
        return (revisions, [])
    }

    /// As git refuses an argument before `--` that is neither a revision nor a path it
    /// has, so that a mistyped tag is an error and not an empty answer: each path
    /// given before `--` must match a stored path, once the store holds any.
    private static func expectStoredPaths(_ paths: [String], in mirror: any MirrorReading) throws {
        var specs = try paths.map { (argument: $0, spec: try PathArguments.pathspec([$0]), matched: false) }
        var holdsPaths = false
        try mirror.forEachStoredPath { _, path in
            holdsPaths = true
            for index in specs.indices where !specs[index].matched && specs[index].spec.matches(path) {
                specs[index].matched = true
            }
        }
        if holdsPaths, let unmatched = specs.first(where: { !$0.matched }) {
            throw RevisionError.neitherRevisionNorPath(unmatched.argument)
        }
    }

    /// Narrows `filter` to what `revisions` select (nothing to do without any).
    static func restrict(
        _ filter: inout CommitFilter, to revisions: [String], in mirror: any MirrorReading
    ) throws -> RevisionQuery.Selection? {
        guard !revisions.isEmpty else { return nil }
        return try RevisionQuery.restrict(&filter, to: try RevisionRange.parse(revisions), in: mirror)
    }
}
