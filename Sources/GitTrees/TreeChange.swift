import GitHash

/// One path where two trees differ, as `git diff-tree -r --raw --no-renames` reports it.
public struct TreeChange: Sendable, Hashable {
    public enum Status: Sendable, Hashable {
        case added, deleted, modified, typeChanged

        /// Git's letter for it in `--raw` and `--name-status` output.
        public var letter: Character {
            switch self {
            case .added: "A"
            case .deleted: "D"
            case .modified: "M"
            case .typeChanged: "T"
            }
        }
    }

    /// What a path holds on one side of a change.
    public struct Version: Sendable, Hashable {
        public let kind: EntryKind
        public let id: ObjectID
    }

    /// The full path from the root tree, `/`-separated, as raw bytes.
    public let path: [UInt8]
    /// Nil when the path was added.
    public let old: Version?
    /// Nil when the path was deleted.
    public let new: Version?

    public init(path: [UInt8], old: Version?, new: Version?) {
        precondition(old != nil || new != nil, "a change has at least one side")
        self.path = path
        self.old = old
        self.new = new
    }

    public var status: Status {
        guard let old else { return .added }
        guard let new else { return .deleted }
        return old.kind.hasSameType(as: new.kind) ? .modified : .typeChanged
    }

    /// The line git's `--raw --no-abbrev` prints for it, path quoted as git quotes it.
    public var rawLine: String {
        let modes = "\(old?.kind.modeText ?? "000000") \(new?.kind.modeText ?? "000000")"
        return ":\(modes) \(old?.id ?? .zero) \(new?.id ?? .zero) \(status.letter)\t\(GitPathQuoting.quoted(path))"
    }
}
