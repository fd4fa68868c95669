import Foundation

/// Turns a received pack into the history of one tip, in two passes over the
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
        let pack = try PackReader(storage: storage, limits: limits)
        try pack.verifyChecksum()
        let order = try parentsFirstOrder(pack, tip: tip, isCancelled: isCancelled)
        let deltaObjects = pack.deltaCount
        var batch: [Commit] = []
        batch.reserveCapacity(min(batchSize, order.count))
        for (offset, id) in order {
            // The name was computed from these very bytes in the first pass.
            let commit = try GitCommitObject(parsing: try pack.object(at: offset).body, id: id)
            batch.append(Commit(commit, id: id, htmlURLPrefix: htmlURLPrefix))
            guard batch.count >= batchSize else { continue }
            if isCancelled() { throw GitError.cancelled }
            try deliver(batch)
            batch.removeAll(keepingCapacity: true)
        }
        if !batch.isEmpty { try deliver(batch) }
        return Summary(
            commits: order.count, packObjects: pack.objectCount, skippedObjects: pack.objectCount - order.count,
            deltaObjects: deltaObjects)
    }

    /// The first pass: every commit parsed, the tip's history ordered. The
    /// graph is dropped on return; the second pass needs only the order.
    private func parentsFirstOrder(
        _ pack: PackReader, tip: ObjectID, isCancelled: () -> Bool
    ) throws -> [(offset: Int, id: ObjectID)] {
        var graph = PackCommitGraph()
        try pack.forEachObject { (object) throws in
            guard object.type == .commit else { return }
            let commit = try GitCommitObject(parsing: object.body, id: object.id)
            try graph.add(commit: object.id, parents: commit.parents, offset: object.offset)
            if isCancelled() { throw GitError.cancelled }
        }
        return try graph.parentsFirstOrder(from: tip)
    }
}
