import GitHash

/// Produces the tree an id names, or throws: not fetched, refused by `GitTree(parsing:id:)`.
public typealias TreeLookup = (ObjectID) throws -> GitTree

/// The paths where two trees differ, as `git diff-tree -r --raw --no-renames`
/// lists them and in its order. It walks both trees' sorted entries side by
/// side and enters only subtrees whose ids differ: an unchanged directory
/// costs one comparison of ids, and its tree is never looked up.
public enum TreeDiff {
    /// The changes from `old` to `new`; nil on either side is the empty tree
    /// (a root commit's parent). A file replaced by a directory of the same name
    /// is the file's deletion plus an addition for each file under the directory.
    public static func changes(
        from old: ObjectID?, to new: ObjectID?, limits: TreeLimits = .default, lookup: TreeLookup
    ) throws -> [TreeChange] {
        try changes(from: old, to: new, limits: limits, within: nil, lookup: lookup)
    }

    static func changes(
        from old: ObjectID?, to new: ObjectID?, limits: TreeLimits, within scope: PathScope?, lookup: TreeLookup
    ) throws -> [TreeChange] {
        guard old != new else { return [] }
        return try withoutActuallyEscaping(lookup) { lookup in
            var walker = TreeWalker(lookup: lookup, limits: limits, scope: scope)
            try walker.enter(old: old, new: new, path: [], depth: 0, oldChain: nil, newChain: nil)
            while !walker.stack.isEmpty { try walker.advance() }
            return walker.changes
        }
    }
}

/// The paths a diff may report (and the directories above them), so a merge's
/// diff against its other parents enters only where a candidate path lies.
struct PathScope {
    let paths: Set<[UInt8]>
    let directories: Set<[UInt8]>

    init(paths: [[UInt8]]) {
        self.paths = Set(paths)
        var directories = Set<[UInt8]>()
        for path in paths {
            for (index, byte) in path.enumerated() where byte == UInt8(ascii: "/") {
                directories.insert(Array(path[..<index]))
            }
        }
        self.directories = directories
    }
}

/// The ids of the trees from the root down to one directory, to refuse a tree that contains itself.
private final class TreeChain {
    let id: ObjectID
    let parent: TreeChain?

    init(id: ObjectID, parent: TreeChain?) {
        self.id = id
        self.parent = parent
    }

    func contains(_ wanted: ObjectID) -> Bool {
        var link: TreeChain? = self
        while let current = link {
            if current.id == wanted { return true }
            link = current.parent
        }
        return false
    }
}

/// A pair of directories being compared, and how far through each one's entries the walk is.
private struct Frame {
    let old: [TreeEntry]
    let new: [TreeEntry]
    var oldIndex = 0
    var newIndex = 0
    /// The directory's path with a trailing `/`; empty at the root.
    let prefix: [UInt8]
    let depth: Int
    let oldChain: TreeChain?
    let newChain: TreeChain?
}

/// A depth-first walk with a stack of its own, so that deep (even hostile) trees cost heap, not the thread's stack.
private struct TreeWalker {
    let lookup: TreeLookup
    let limits: TreeLimits
    let scope: PathScope?
    var changes: [TreeChange] = []
    var stack: [Frame] = []

    init(lookup: @escaping TreeLookup, limits: TreeLimits, scope: PathScope?) {
        self.lookup = lookup
        self.limits = limits
        self.scope = scope
    }

    mutating func enter(
        old: ObjectID?, new: ObjectID?, path: [UInt8], depth: Int, oldChain: TreeChain?, newChain: TreeChain?
    ) throws {
        guard depth <= limits.maximumDepth else { throw TreeError.tooDeep(path: path, limit: limits.maximumDepth) }
        let oldEntries = try old.map { try tree($0, below: oldChain, at: path).entries } ?? []
        let newEntries = try new.map { try tree($0, below: newChain, at: path).entries } ?? []
        stack.append(
            Frame(
                old: oldEntries, new: newEntries, prefix: path.isEmpty ? [] : path + [UInt8(ascii: "/")], depth: depth,
                oldChain: old.map { TreeChain(id: $0, parent: oldChain) }, newChain: new.map { TreeChain(id: $0, parent: newChain) }))
    }

    private func tree(_ id: ObjectID, below chain: TreeChain?, at path: [UInt8]) throws -> GitTree {
        if chain?.contains(id) == true { throw TreeError.containsItself(tree: id, path: path) }
        let tree = try lookup(id)
        guard tree.id == id else { throw TreeError.idMismatch(expected: id, actual: tree.id) }
        return tree
    }

    /// Moves the top frame on to the next subtree it must enter, reporting the
    /// files it passes; pops the frame once both its directories are done.
    mutating func advance() throws {
        let top = stack.count - 1
        while true {
            let frame = stack[top]
            let old = frame.oldIndex < frame.old.count ? frame.old[frame.oldIndex] : nil
            let new = frame.newIndex < frame.new.count ? frame.new[frame.newIndex] : nil
            let order: Int
            switch (old, new) {
            case (nil, nil):
                stack.removeLast()
                return
            case (_, nil): order = -1
            case (nil, _): order = 1
            case (let old?, let new?):
                order = gitOrder(old.name, leftIsTree: old.kind == .tree, new.name, rightIsTree: new.kind == .tree)
            }
            if order <= 0 { stack[top].oldIndex += 1 }
            if order >= 0 { stack[top].newIndex += 1 }
            if try visit(old: order <= 0 ? old : nil, new: order >= 0 ? new : nil, in: frame) { return }
        }
    }

    /// One name of the directory, in the old tree, the new one or both (then of
    /// the same kind: git's order tells a file from a directory of its name).
    /// True when it entered a subtree, which the walk finishes first.
    private mutating func visit(old: TreeEntry?, new: TreeEntry?, in frame: Frame) throws -> Bool {
        guard let name = old?.name ?? new?.name else { return false }
        let path = frame.prefix + name
        if old?.kind == .tree || new?.kind == .tree {
            guard old?.id != new?.id, scope?.directories.contains(path) ?? true else { return false }
            try enter(
                old: old?.id, new: new?.id, path: path, depth: frame.depth + 1, oldChain: frame.oldChain, newChain: frame.newChain)
            return true
        }
        if let old, let new, old.id == new.id, old.kind == new.kind { return false }
        guard scope?.paths.contains(path) ?? true else { return false }
        guard changes.count < limits.maximumChanges else { throw TreeError.tooManyChanges(limit: limits.maximumChanges) }
        changes.append(
            TreeChange(
                path: path, old: old.map { TreeChange.Version(kind: $0.kind, id: $0.id) },
                new: new.map { TreeChange.Version(kind: $0.kind, id: $0.id) }))
        return false
    }
}
