import GitHash
import GitTrees

/// The trees of a pack fetched with them (`filter blob:none`), found through
/// the pack's index and verified as each is read, and the changes of each of
/// its commits worked out from them. Recent trees are kept parsed: a commit's
/// diff reads mostly the trees its parent's diff just read.
///
/// Not `Sendable`: used on the thread that reads the pack.
final class PackTrees {
    private let pack: PackReader
    private let index: any PackCommitIndex
    private let limits: TreeLimits
    private var cache: [ObjectID: GitTree] = [:]
    private var cachedEntries = 0
    /// Entries kept parsed before the cache is emptied and begins again.
    private static let cacheEntryLimit = 1 << 16

    init(pack: PackReader, index: any PackCommitIndex, limits: TreeLimits = .default) {
        self.pack = pack
        self.index = index
        self.limits = limits
    }

    /// What `commit` changed against its parents, each of which must be in the pack.
    func changes(of commit: GitCommitObject, id: ObjectID) throws -> CommitChanges {
        let parentTrees = try commit.parents.map { parent in
            // Every parent is in the pack: the first pass checked it.
            guard let tree = try index.tree(ofCommit: parent) else {
                throw GitError.parentMissing(commit: id.hex, parent: parent.hex)
            }
            return tree
        }
        do {
            return try CommitChanges(tree: commit.tree, parentTrees: parentTrees, limits: limits, everyParent: true) { tree in
                try self.tree(tree, for: id)
            }
        } catch let error as TreeError {
            throw GitError.badTree(error, commit: id.hex)
        }
    }

    private func tree(_ id: ObjectID, for commit: ObjectID) throws -> GitTree {
        if let tree = cache[id] { return tree }
        guard let offset = try index.offset(ofTree: id) else {
            throw GitError.treeMissing(tree: id.hex, commit: commit.hex)
        }
        let object = try pack.object(at: offset)
        guard object.type == .tree else {
            throw GitError.malformedPack("the object at offset \(offset) is a \(object.type.name), indexed as tree \(id.hex)")
        }
        let tree = try GitTree(parsing: object.body, id: id, limits: limits)
        if cachedEntries + tree.entries.count > Self.cacheEntryLimit {
            cache.removeAll(keepingCapacity: true)
            cachedEntries = 0
        }
        cache[id] = tree
        cachedEntries += tree.entries.count
        return tree
    }
}
