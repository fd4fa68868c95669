import Foundation
import GitHash
import GitTrees

/// Turns a received pack into the history of one tip (or several: branches
/// fetched together, each commit handed on once), in two passes over the
/// pack so that nothing is handed on from a pack that turns out bad: the
/// first checks the trailer, parses every commit and finds those the tip
/// reaches (each with all its parents); the second hands those on in
/// batches, parents before children, so whatever prefix of the batches was
/// stored is a closed history. Commits the tip does not reach (a server's
/// extras) are left out.
struct PackHistoryReader {
    var limits = PackLimits()
    var batchSize = 1000
    /// Prefixed to `/commit/<sha>` for each commit's `htmlURL` (the repository's web page), when known.
    var htmlURLPrefix: String?
    /// The pack holds the commits' trees (`filter blob:none`): each commit is
    /// handed on with what it changed, every tree verified as it is read.
    var readsChanges = false

    struct Summary: Sendable, Equatable {
        /// Commits handed on: those the tip reaches.
        var commits: Int
        var packObjects: Int
        /// Objects of the pack that were not handed on (commits the tip does not reach, other types).
        var skippedObjects: Int
        /// Objects the pack stored as deltas.
        var deltaObjects: Int
        /// The first pass made while the pack came was used, not made again.
        var firstPassWhileArriving = false
    }

    func read(
        _ storage: any PackStorage, tip: ObjectID, isCancelled: () -> Bool = { false },
        deliver: ([Commit]) throws -> Void
    ) throws -> Summary {
        try read(storage, tips: [tip], isCancelled: isCancelled, deliver: deliver)
    }

    /// The histories of several tips (branches) from one pack, each commit handed
    /// on once, parents first; every tip must be in the pack (docs/BRANCHES.md).
    ///
    /// With `firstPass` (made while the pack came), the first pass is not done
    /// again if that one's objects ended exactly at this pack's trailer; the
    /// checksum is always checked first.
    func read(
        _ storage: any PackStorage, tips: [ObjectID], firstPass: FirstPass? = nil, isCancelled: () -> Bool = { false },
        deliver: ([Commit]) throws -> Void
    ) throws -> Summary {
        try read(storage, tips: tips, firstPass: firstPass, isCancelled: isCancelled) { commits, _ in try deliver(commits) }
    }

    /// The histories of the tips with, when `readsChanges`, what each commit
    /// changed: `changes[i]` belongs to `commits[i]` (empty otherwise, and for
    /// a pack without a single tree). A tree
    /// missing or failing its checks ends the read there, after the batches
    /// before it, which are a closed history with their changes.
    func read(
        _ storage: any PackStorage, tips: [ObjectID], firstPass: FirstPass? = nil, isCancelled: () -> Bool = { false },
        deliver: ([Commit], [CommitChanges]) throws -> Void
    ) throws -> Summary {
        let pack = try PackReader(storage: storage, limits: limits)
        try pack.verifyChecksum()
        let index: any PackCommitIndex
        let deltaObjects: Int
        let reused = firstPass.map { $0.objectsEnd == storage.byteCount - 20 } ?? false
        if reused, let firstPass {
            (index, deltaObjects) = (firstPass.index, firstPass.deltaObjects)
        } else {
            index = try indexCommits(pack, isCancelled: isCancelled)
            deltaObjects = pack.deltaCount
        }
        // A pack asked with its trees that holds none is a server without trees (github-sim's
        // synthetic histories): its commits come without changes, left not yet known.
        let trees = readsChanges && index.treeCount > 0 ? PackTrees(pack: pack, index: index) : nil
        var batch: [Commit] = []
        var changes: [CommitChanges] = []
        batch.reserveCapacity(batchSize)
        let commits = try index.forEachCommit(reachedFrom: tips) { offset, id in
            // The name was computed from these very bytes in the first pass.
            let commit = try GitCommitObject(parsing: try pack.object(at: offset).body, id: id)
            batch.append(Commit(commit, id: id, htmlURLPrefix: htmlURLPrefix))
            if let trees { changes.append(try trees.changes(of: commit, id: id)) }
            guard batch.count >= batchSize else { return }
            if isCancelled() { throw GitError.cancelled }
            try deliver(batch, changes)
            batch.removeAll(keepingCapacity: true)
            changes.removeAll(keepingCapacity: true)
        }
        if !batch.isEmpty { try deliver(batch, changes) }
        return Summary(
            commits: commits, packObjects: pack.objectCount, skippedObjects: pack.objectCount - commits,
            deltaObjects: deltaObjects, firstPassWhileArriving: reused)
    }

    /// The first pass over a pack that is still arriving (`GrowingPackStorage`),
    /// which cannot tell yet where its objects must end.
    struct FirstPass {
        let index: any PackCommitIndex
        let deltaObjects: Int
        /// Where its last object ended: the trailer's offset, if the pack is sound.
        let objectsEnd: Int
    }

    func firstPass(_ storage: any PackStorage, isCancelled: () -> Bool) throws -> FirstPass {
        let pack = try PackReader(storage: storage, limits: limits)
        let index = try indexCommits(pack, checkingTheEnd: false, isCancelled: isCancelled)
        return FirstPass(index: index, deltaObjects: pack.deltaCount, objectsEnd: pack.objectsEnd)
    }

    /// The first pass: every commit parsed, its parents indexed.
    private func indexCommits(_ pack: PackReader, checkingTheEnd: Bool = true, isCancelled: () -> Bool) throws -> any PackCommitIndex {
        let index = try PackCommitIndexes.make()
        try pack.forEachObject(checkingTheEnd: checkingTheEnd) { (object) throws in
            if object.type == .tree, readsChanges { try index.add(tree: object.id, offset: object.offset) }
            guard object.type == .commit else { return }
            let commit = try GitCommitObject(parsing: object.body, id: object.id)
            try index.add(commit: object.id, tree: readsChanges ? commit.tree : nil, parents: commit.parents, offset: object.offset)
            if isCancelled() { throw GitError.cancelled }
        }
        return index
    }
}
