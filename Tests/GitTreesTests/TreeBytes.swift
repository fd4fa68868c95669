import GitHash
import GitTrees

/// Tree objects written by hand, byte for byte, for the inputs no honest git writes.
enum TreeBytes {
    static let blob = ObjectID(hex: "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391")!

    /// The bytes of a tree with these entries, in the order given (sorted or not).
    static func tree(_ entries: [(mode: String, name: [UInt8], id: ObjectID)]) -> [UInt8] {
        var bytes: [UInt8] = []
        for entry in entries {
            bytes += Array(entry.mode.utf8)
            bytes.append(UInt8(ascii: " "))
            bytes += entry.name
            bytes.append(0)
            bytes += entry.id.digest
        }
        return bytes
    }

    static func tree(_ entries: [(mode: String, name: String)]) -> [UInt8] {
        tree(entries.map { (mode: $0.mode, name: Array($0.name.utf8), id: blob) })
    }

    /// The bytes parsed under their own id, as an honest server would name them.
    static func parse(_ bytes: [UInt8], limits: TreeLimits = .default) throws(TreeError) -> GitTree {
        try GitTree(parsing: bytes, id: ObjectID(hashingObject: bytes, type: "tree"), limits: limits)
    }
}
