import Foundation

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

    struct Summary: Sendable, Equatable {
        /// Commits handed on: those the tip reaches.
        var commits: Int
        var packObjects: Int
        /// Objects of the pack that were not handed on (commits the tip does not reach, other types).
        var skippedObjects: Int
        /// Objects the pack stored as deltas.
        var deltaObjects: Int
    }

    func read(
        _ storage: any PackStorage, tip: ObjectID, isCancelled: () -> Bool = { false },
        deliver: ([Commit]) throws -> Void
    ) throws -> Summary {
        try read(storage, tips: [tip], isCancelled: isCancelled, deliver: deliver)
    }

    /// The histories of several tips (branches) from one pack, each commit handed
    /// on once, parents first; every tip must be in the pack (docs/BRANCHES.md).
    func read(
        _ storage: any PackStorage, tips: [ObjectID], isCancelled: () -> Bool = { false },
        deliver: ([Commit]) throws -> Void
    ) throws -> Summary {
        let pack = try PackReader(storage: storage, limits: limits)
        try pack.verifyChecksum()
        let index = try indexCommits(pack, isCancelled: isCancelled)
        let deltaObjects = pack.deltaCount
        var batch: [Commit] = []
        batch.reserveCapacity(batchSize)
        let commits = try index.forEachCommit(reachedFrom: tips) { offset, id in
            // The name was computed from these very bytes in the first pass.
            let commit = try GitCommitObject(parsing: try pack.object(at: offset).body, id: id)
            batch.append(Commit(commit, id: id, htmlURLPrefix: htmlURLPrefix))
            guard batch.count >= batchSize else { return }
            if isCancelled() { throw GitError.cancelled }
            try deliver(batch)
            batch.removeAll(keepingCapacity: true)
        }
        if !batch.isEmpty { try deliver(batch) }
        return Summary(
            commits: commits, packObjects: pack.objectCount, skippedObjects: pack.objectCount - commits,
            deltaObjects: deltaObjects)
    }

    /// The first pass: every commit parsed, its parents indexed.
    private func indexCommits(_ pack: PackReader, isCancelled: () -> Bool) throws -> PackCommitIndex {
        let index = try PackCommitIndex()
        try pack.forEachObject { (object) throws in
            guard object.type == .commit else { return }
            let commit = try GitCommitObject(parsing: object.body, id: object.id)
            try index.add(commit: object.id, parents: commit.parents, offset: object.offset)
            if isCancelled() { throw GitError.cancelled }
        }
        return index
    }
}
