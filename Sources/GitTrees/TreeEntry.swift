import GitHash

/// What a tree entry names, from its mode: the five kinds git writes.
public enum EntryKind: Sendable, Hashable {
    case file, executable, symlink, tree, submodule

    /// The mode as git's raw diff prints it (six octal digits).
    public var modeText: String {
        switch self {
        case .file: "100644"
        case .executable: "100755"
        case .symlink: "120000"
        case .tree: "040000"
        case .submodule: "160000"
        }
    }

    /// Git reports a change between two of these as a type change (`T`), not a
    /// modification, when the file types differ: a mode bit alone is not a type.
    func hasSameType(as other: EntryKind) -> Bool {
        switch (self, other) {
        case (.file, .file), (.file, .executable), (.executable, .file), (.executable, .executable): true
        default: self == other
        }
    }
}

/// One entry of a tree: its kind, its name as raw bytes (git names are bytes,
/// not text), and the id of what it names.
public struct TreeEntry: Sendable, Hashable {
    public let kind: EntryKind
    public let name: [UInt8]
    public let id: ObjectID
}

/// Git's order of tree entries: names compared as bytes, a tree's as if it
/// ended in `/` (so `a.c` sorts between the file `a` and the directory `a`).
/// Negative, zero or positive, as `memcmp`.
func gitOrder(_ left: [UInt8], leftIsTree: Bool, _ right: [UInt8], rightIsTree: Bool) -> Int {
    let common = min(left.count, right.count)
    for index in 0..<common where left[index] != right[index] {
        return left[index] < right[index] ? -1 : 1
    }
    let slash = UInt8(ascii: "/")
    let leftNext: UInt8 = left.count > common ? left[common] : (leftIsTree ? slash : 0)
    let rightNext: UInt8 = right.count > common ? right[common] : (rightIsTree ? slash : 0)
    return leftNext == rightNext ? 0 : (leftNext < rightNext ? -1 : 1)
}
