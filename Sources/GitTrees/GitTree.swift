import GitHash

/// A tree object, parsed and verified: every entry's mode is one git writes,
/// every name is one git would check out, the entries are in git's order
/// without duplicates, and the bytes hash to the id they were asked for.
public struct GitTree: Sendable, Equatable {
    public let id: ObjectID
    public let entries: [TreeEntry]

    /// The tree with no entries, which a root commit is compared against.
    public static let empty = GitTree(id: ObjectID(hashingObject: [], type: "tree"), entries: [])

    /// Unverified, for the tests alone: a tree that contains itself needs a SHA-1
    /// fixed point, so only a tree built here can show that the diff refuses one.
    init(id: ObjectID, entries: [TreeEntry]) {
        self.id = id
        self.entries = entries
    }

    /// Parses the content of a tree object (without its `tree <len>\0` header),
    /// refusing it unless it is exactly the tree `id` names.
    public init(parsing bytes: [UInt8], id: ObjectID, limits: TreeLimits = .default) throws(TreeError) {
        guard bytes.count <= limits.maximumBytes else {
            throw .tooLarge(tree: id, bytes: bytes.count, limit: limits.maximumBytes)
        }
        let actual = ObjectID(hashingObject: bytes, type: "tree")
        guard actual == id else { throw .idMismatch(expected: id, actual: actual) }
        let entries = try bytes.withUnsafeBufferPointer { buffer throws(TreeError) in
            var reader = TreeReader(bytes: buffer, tree: id, limits: limits)
            return try reader.readAll()
        }
        self.init(id: id, entries: entries)
    }
}

/// Reads the entries of one tree's bytes in order, checking each against the one before it.
private struct TreeReader {
    let bytes: UnsafeBufferPointer<UInt8>
    let tree: ObjectID
    let limits: TreeLimits
    var offset = 0
    var entries: [TreeEntry] = []
    /// Whether a directory may share its name with a file that does not sit just before it.
    var mayHideDuplicate = false

    init(bytes: UnsafeBufferPointer<UInt8>, tree: ObjectID, limits: TreeLimits) {
        self.bytes = bytes
        self.tree = tree
        self.limits = limits
    }

    mutating func readAll() throws(TreeError) -> [TreeEntry] {
        while offset < bytes.count {
            guard entries.count < limits.maximumEntries else { throw .tooManyEntries(tree: tree, limit: limits.maximumEntries) }
            let entry = try readEntry()
            if let previous = entries.last { try checkOrder(previous, entry) }
            entries.append(entry)
        }
        if mayHideDuplicate { try checkFilesBesideDirectories() }
        return entries
    }

    private mutating func readEntry() throws(TreeError) -> TreeEntry {
        let start = offset
        guard let space = firstIndex(of: UInt8(ascii: " "), from: offset) else { throw .truncated(tree: tree, offset: start) }
        let kind = try Self.kind(of: bytes[offset..<space], tree: tree)
        guard let terminator = firstIndex(of: 0, from: space + 1) else { throw .truncated(tree: tree, offset: start) }
        let name = Array(bytes[(space + 1)..<terminator])
        try Self.check(name: name, tree: tree)
        let idStart = terminator + 1
        guard bytes.count - idStart >= 20 else { throw .truncated(tree: tree, offset: start) }
        offset = idStart + 20
        let id = ObjectID(bytes: UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes[idStart..<offset])))
        return TreeEntry(kind: kind, name: name, id: id)
    }

    private func firstIndex(of byte: UInt8, from start: Int) -> Int? {
        var index = start
        while index < bytes.count {
            if bytes[index] == byte { return index }
            index += 1
        }
        return nil
    }

    /// The five modes git writes, and `100664`, which early git wrote for some
    /// files: fsck accepts it unless `--strict` and git's tree walk reads it as
    /// `100644`, so refusing it would refuse real, old histories.
    private static func kind(of mode: Slice<UnsafeBufferPointer<UInt8>>, tree: ObjectID) throws(TreeError) -> EntryKind {
        switch String(decoding: mode, as: UTF8.self) {
        case "100644", "100664": .file
        case "100755": .executable
        case "120000": .symlink
        case "40000": .tree
        case "160000": .submodule
        case let other: throw .badMode(tree: tree, mode: String(other.prefix(16)))
        }
    }

    private static func check(name: [UInt8], tree: ObjectID) throws(TreeError) {
        guard !name.isEmpty, !name.contains(UInt8(ascii: "/")) else { throw .badName(tree: tree, name: name) }
        guard name.count <= 4, name[0] == UInt8(ascii: ".") else { return }
        let lowered = name.map { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") ? $0 + 32 : $0 }
        if lowered == Array(".".utf8) || lowered == Array("..".utf8) || lowered == Array(".git".utf8) {
            throw .reservedName(tree: tree, name: name)
        }
    }

    private mutating func checkOrder(_ previous: TreeEntry, _ entry: TreeEntry) throws(TreeError) {
        if previous.name == entry.name { throw .duplicateName(tree: tree, name: entry.name) }
        let order = gitOrder(previous.name, leftIsTree: previous.kind == .tree, entry.name, rightIsTree: entry.kind == .tree)
        guard order < 0 else { throw .unsorted(tree: tree, name: entry.name) }
        // A file `a` sorts before `a.c`, which sorts before the directory `a`:
        // a duplicate there is not adjacent, so such trees get a full check.
        if entry.kind == .tree, previous.name.count > entry.name.count, previous.name.starts(with: entry.name) {
            mayHideDuplicate = true
        }
    }

    private func checkFilesBesideDirectories() throws(TreeError) {
        let fileNames = Set(entries.lazy.filter { $0.kind != .tree }.map(\.name))
        if let twice = entries.first(where: { $0.kind == .tree && fileNames.contains($0.name) }) {
            throw .duplicateName(tree: tree, name: twice.name)
        }
    }
}
