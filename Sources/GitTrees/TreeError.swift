import GitHash

/// Why a tree, or a diff over trees, was refused: each case names what was wrong in one line.
public enum TreeError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The bytes hash to `actual`, not to the id they were fetched as.
    case idMismatch(expected: ObjectID, actual: ObjectID)
    case tooLarge(tree: ObjectID, bytes: Int, limit: Int)
    case tooManyEntries(tree: ObjectID, limit: Int)
    /// An entry ends before its mode, name or 20-byte id does.
    case truncated(tree: ObjectID, offset: Int)
    case badMode(tree: ObjectID, mode: String)
    /// An empty name, or one containing `/`.
    case badName(tree: ObjectID, name: [UInt8])
    /// `.`, `..` or `.git` in any case, which git refuses to check out.
    case reservedName(tree: ObjectID, name: [UInt8])
    case unsorted(tree: ObjectID, name: [UInt8])
    case duplicateName(tree: ObjectID, name: [UInt8])
    /// A tree that contains itself by id, directly or through its subtrees.
    case containsItself(tree: ObjectID, path: [UInt8])
    case tooDeep(path: [UInt8], limit: Int)
    case tooManyChanges(limit: Int)

    public var description: String {
        switch self {
        case .idMismatch(let expected, let actual):
            "tree \(expected) is not what its bytes hash to (\(actual)): the server sent a forged or damaged tree"
        case .tooLarge(let tree, let bytes, let limit):
            "tree \(tree) is \(bytes) bytes, over the limit of \(limit)"
        case .tooManyEntries(let tree, let limit):
            "tree \(tree) has more than \(limit) entries"
        case .truncated(let tree, let offset):
            "tree \(tree) is truncated: an entry at byte \(offset) ends before its mode, name or id"
        case .badMode(let tree, let mode):
            "tree \(tree) has an entry with mode \(GitPathQuoting.quoted(Array(mode.utf8))), which git does not write"
        case .badName(let tree, let name):
            "tree \(tree) has an entry named \(name.isEmpty ? "\"\"" : GitPathQuoting.quoted(name)): a name must be non-empty and contain no /"
        case .reservedName(let tree, let name):
            "tree \(tree) has an entry named \(GitPathQuoting.quoted(name)), which git refuses (., .. or .git)"
        case .unsorted(let tree, let name):
            "tree \(tree) is not in git's order at entry \(GitPathQuoting.quoted(name))"
        case .duplicateName(let tree, let name):
            "tree \(tree) names \(GitPathQuoting.quoted(name)) twice"
        case .containsItself(let tree, let path):
            "tree \(tree) contains itself at \(GitPathQuoting.quoted(path))"
        case .tooDeep(let path, let limit):
            "trees nest deeper than \(limit) levels at \(GitPathQuoting.quoted(path))"
        case .tooManyChanges(let limit):
            "a diff changes more than \(limit) paths"
        }
    }
}
