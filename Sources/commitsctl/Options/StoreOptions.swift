import ArgumentParser
import Foundation
import MirrorCore

/// `--db` and `--config`, shared by every command that opens the store: a
/// reading command pointed at the service's configuration finds its store.
struct StoreOptions: ParsableArguments {
    @Option(Options.path) var path: String?

    @OptionGroup var configuration: ConfigOptions

    /// `--db`, else `$COMMITS_DB`, else the store named by `--config` /
    /// `$COMMITS_MIRROR_CONFIG`, else the per-user default. Throws when the
    /// named configuration cannot be read.
    var resolvedLocation: StoreLocation {
        get throws {
            try ResolvedSettings(configuration: try configuration.load(), store: self).store
        }
    }

    func validate() throws {
        // An empty $COMMITS_DB means unset; an explicit empty flag is a mistake (an unset variable in a script).
        if path?.isEmpty == true {
            throw ValidationError("--db is empty; give the path of the store file, or leave --db out for $COMMITS_DB or the default")
        }
    }
}
