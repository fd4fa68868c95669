import Foundation

/// Which of a repository's tags a sync records (`tags:` in the configuration):
/// none, every one, or those whose names match globs as `git tag -l` matches
/// them (`*` also matches `/`).
public enum TagSelection: Sendable, Hashable, CustomStringConvertible {
    case none
    case all
    /// At least one glob, none of them empty.
    case matching([String])

    public func selects(_ name: String) -> Bool {
        switch self {
        case .none: false
        case .all: true
        case .matching(let globs): globs.contains { fnmatch($0, name, 0) == 0 }
        }
    }

    /// How the store keeps it beside the listing's ETag, so a listing recorded
    /// under another selection is asked for again in full: nil for every tag.
    public var storedForm: String? {
        switch self {
        case .none: ""
        case .all: nil
        case .matching(let globs): globs.joined(separator: "\n")
        }
    }

    /// As the configuration spells it: `true`, `false`, or the globs.
    public var description: String {
        switch self {
        case .none: "false"
        case .all: "true"
        case .matching(let globs): globs.joined(separator: ", ")
        }
    }
}
