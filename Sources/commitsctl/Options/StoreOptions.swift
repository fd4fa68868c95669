import ArgumentParser
import MirrorCore

/// `--db`, shared by every command that opens the store.
struct StoreOptions: ParsableArguments {
    @Option(name: .customLong("db"), help: "The store file (default: $COMMITS_DB, else $XDG_DATA_HOME/commits-mirror/commits.sqlite).")
    var path: String?

    var resolvedPath: String { StorePath.resolve(explicit: path) }

    func validate() throws {
        // An empty $COMMITS_DB means unset; an explicit empty flag is a mistake (an unset variable in a script).
        if path?.isEmpty == true {
            throw ValidationError("--db is empty; give the path of the store file, or leave --db out for $COMMITS_DB or the default")
        }
    }
}
