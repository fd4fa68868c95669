import GitHash
import GitTrees
import Synchronization

/// Verified trees kept in memory, counting which ones a diff looked up.
final class TreeStore: Sendable {
    private let trees = Mutex<[ObjectID: GitTree]>([:])
    private let looked = Mutex<[ObjectID]>([])

    /// Stores a tree of these entries (given in git's order) and returns its id.
    @discardableResult
    func add(_ entries: [(mode: String, name: String, id: ObjectID)]) throws -> ObjectID {
        let tree = try TreeBytes.parse(TreeBytes.tree(entries.map { (mode: $0.mode, name: Array($0.name.utf8), id: $0.id) }))
        trees.withLock { $0[tree.id] = tree }
        return tree.id
    }

    var lookedUp: [ObjectID] { looked.withLock { $0 } }

    func lookup(_ id: ObjectID) throws -> GitTree {
        looked.withLock { $0.append(id) }
        guard let tree = trees.withLock({ $0[id] }) else { throw GitFailure.unreadable("no tree \(id)") }
        return tree
    }

    /// A blob id that differs with `seed`; blobs are never looked up, so any id serves.
    static func blob(_ seed: Int) -> ObjectID { ObjectID(hashingObject: Array("blob \(seed)".utf8), type: "blob") }
}
