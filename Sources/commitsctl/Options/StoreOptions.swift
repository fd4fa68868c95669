import ArgumentParser
import MirrorCore

/// `--db`, shared by every command that opens the store.
struct StoreOptions: ParsableArguments {
    @Option(name: .customLong("db"), help: "The store file (default: $COMMITS_DB, else $XDG_DATA_HOME/commits-mirror/commits.sqlite).")
    var path: String?

    var resolvedPath: String { StorePath.resolve(explicit: path) }
}
