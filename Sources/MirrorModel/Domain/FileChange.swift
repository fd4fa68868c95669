import Foundation

/// One path where a commit's tree differs from one of its parents' trees (the
/// empty tree, for a root commit), as `git diff-tree -r --raw --no-renames`
/// reports it: read from git's own trees, every one verified, and mapped once
/// at the git boundary. Paths are bytes, as git keeps them.
public struct FileChange: Sendable, Hashable {
    /// What a path holds on one side of the change.
    public struct Side: Sendable, Hashable {
        /// Git's mode, the number its six octal digits spell (`0o100644`).
        public var mode: UInt32
        /// The blob's, symlink's, tree's or submodule commit's id: 40 lowercase hex digits.
        public var objectID: String

        public init(mode: UInt32, objectID: String) {
            self.mode = mode
            self.objectID = objectID
        }

        /// Six octal digits, as git's raw diff prints a mode.
        public var modeText: String {
            let digits = String(mode, radix: 8)
            return String(repeating: "0", count: max(0, 6 - digits.count)) + digits
        }
    }

    /// Git's letters for a change in `--raw` and `--name-status` output.
    public enum Status: String, Sendable, Hashable {
        case added = "A", deleted = "D", modified = "M", typeChanged = "T"
    }

    /// The full path from the root tree, `/`-separated.
    public var path: [UInt8]
    /// Which parent the change is against, first parent 0 (also for a root commit).
    public var parent: Int
    /// Nil when the path was added.
    public var old: Side?
    /// Nil when the path was deleted.
    public var new: Side?

    public init(path: [UInt8], parent: Int, old: Side?, new: Side?) {
        precondition(old != nil || new != nil, "a change has at least one side")
        self.path = path
        self.parent = parent
        self.old = old
        self.new = new
    }

    /// A file, a symlink and a submodule are types of their own; the executable
    /// bit alone is a modification, as git's `S_IFMT` comparison has it.
    public var status: Status {
        guard let old else { return .added }
        guard let new else { return .deleted }
        return old.mode & 0o170000 == new.mode & 0o170000 ? .modified : .typeChanged
    }
}

extension FileChange.Side {
    /// The id as the 20 bytes its hex digits spell, how stores keep it.
    package var objectIDBytes: [UInt8] { FileChange.bytes(hexDigits: objectID) }

    /// A side read back from a store: the id's bytes written as hex digits.
    package init(mode: UInt32, objectIDBytes bytes: [UInt8]) {
        self.init(mode: mode, objectID: FileChange.hexDigits(bytes))
    }
}

extension FileChange {
    /// Hex digits (either case) as the bytes they spell: how a store that hands
    /// bytes over as text (PostgreSQL's `encode`, copy-store's rows) gives them.
    package static func bytes(hexDigits: some StringProtocol) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(hexDigits.utf8.count / 2)
        var high: UInt8?
        for digit in hexDigits.utf8 {
            let value = digit <= 0x39 ? digit &- 0x30 : (digit | 0x20) &- 0x57
            if let first = high {
                bytes.append(first << 4 | value)
                high = nil
            } else {
                high = value
            }
        }
        return bytes
    }

    /// `bytes` as lowercase hex digits, two a byte.
    package static func hexDigits(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var hex: [UInt8] = []
        hex.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            hex.append(digits[Int(byte >> 4)])
            hex.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: hex, as: UTF8.self)
    }
}
