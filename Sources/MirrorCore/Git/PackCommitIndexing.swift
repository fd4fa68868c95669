import GitHash
import Synchronization

/// The parent links of a pack's commits, to find the commits the wanted tip
/// reaches, check that none of them lacks a parent, and order them parents
/// first before any is handed on. A history may hold millions of commits, so
/// an index keeps them on disk with a bounded cache: the SQLite backend's
/// scratch database (MirrorSQLite `SQLitePackCommitIndex`), which the core does
/// not link; each executable registers it (`PackCommitIndexes.register`).
///
/// Not `Sendable`: used on the thread that reads the pack.
package protocol PackCommitIndex: AnyObject {
    /// Records one commit of the pack, in pack order, with its tree when the
    /// pack holds trees (nil for a commits-only pack, which never asks for it).
    func add(commit id: ObjectID, tree: ObjectID?, parents: [ObjectID], offset: Int) throws
    /// Records one tree of the pack (a pack fetched with its trees), in pack order.
    func add(tree id: ObjectID, offset: Int) throws
    /// How many trees were recorded.
    var treeCount: Int { get }
    /// Calls `body` with every commit the tips reach (once each, however many
    /// reach it), where it is in the pack, every commit after all its parents;
    /// returns how many. Throws before the first call when a tip or a reached
    /// parent is not in the pack, or a commit is in it twice. Once per index: it
    /// ends the adding. Several tips are several branches read from one pack.
    func forEachCommit(
        reachedFrom tips: [ObjectID], parentsFirst body: (_ offset: Int, _ id: ObjectID) throws -> Void
    ) throws -> Int
    /// The tree a commit of the pack names; nil for a commit the pack lacks, or recorded without its tree.
    /// Only once `forEachCommit` has begun.
    func tree(ofCommit id: ObjectID) throws -> ObjectID?
    /// Where a tree is in the pack; nil for a tree the pack lacks. Only once
    /// `forEachCommit` has begun.
    func offset(ofTree id: ObjectID) throws -> Int?
}

/// How new pack indexes are made: registered once by each executable, beside the store drivers.
public enum PackCommitIndexes {
    package typealias Maker = @Sendable () throws -> any PackCommitIndex
    private static let maker = Mutex<Maker?>(nil)

    package static func register(_ make: @escaping Maker) {
        maker.withLock { $0 = make }
    }

    /// A new, empty index; `GitError.noPackIndex` in a build that registered none.
    package static func make() throws -> any PackCommitIndex {
        guard let make = maker.withLock({ $0 }) else { throw GitError.noPackIndex }
        return try make()
    }
}
