import ArgumentParser
import MirrorCore

/// The pathspecs `query`, `authors` and `paths` take after their options, as git's commands take them.
enum PathArguments {
    /// The pathspec `arguments` spell, or the usage error that says what is wrong with them.
    static func pathspec(_ arguments: [String]) throws -> Pathspec {
        do {
            return try Pathspec(arguments)
        } catch {
            throw ValidationError("\(error)")
        }
    }

    /// Narrows `filter` to the commits git lists for `paths` (`PathQuery`) and
    /// warns, on stderr, of the walked commits whose paths are not stored yet,
    /// which the answer leaves out (`leftOut`: how the command says so).
    static func restrict(
        _ filter: inout CommitFilter, to paths: [String], simplification: HistorySimplification,
        within selection: RevisionQuery.Selection? = nil, in mirror: any MirrorReading, leftOut: String
    ) throws {
        let coverage = try PathQuery.restrict(
            &filter, to: try pathspec(paths), simplification: simplification, within: selection, in: mirror)
        guard coverage.notCovered > 0 else { return }
        printWarning(
            "\(plural(coverage.notCovered, "commit")) of these histories have no stored paths yet and are \(leftOut); "
                + "`commitsctl status` shows how far the paths are read")
    }
}
