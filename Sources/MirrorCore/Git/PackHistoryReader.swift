import Foundation

/// Turns a received pack into the history of one tip, in two passes over the
/// pack so that nothing is handed on from a pack that turns out bad: the
/// first checks the trailer, parses every commit and finds those the tip
/// reaches (each with all its parents); the second hands those on in batches.
/// Commits the tip does not reach (a server's extras) are left out.
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
        var graph = PackCommitGraph()
        try pack.forEachObject { (object) throws in
            guard object.type == .commit else { return }
            let commit = try GitCommitObject(parsing: object.body, id: object.id)
            try graph.add(commit: object.id, parents: commit.parents)
            if isCancelled() { throw GitError.cancelled }
        }
        let reachable = try graph.reachable(from: tip)
        var batch: [Commit] = []
        batch.reserveCapacity(batchSize)
        var deliveryError: (any Error)?
        do {
            try pack.forEachObject { (object) throws in
                guard object.type == .commit, reachable.contains(object.id) else { return }
                let commit = try GitCommitObject(parsing: object.body, id: object.id)
                batch.append(Commit(commit, id: object.id, htmlURLPrefix: htmlURLPrefix))
                guard batch.count >= batchSize else { return }
                if isCancelled() { throw GitError.cancelled }
                do { try deliver(batch) } catch {
                    deliveryError = error
                    throw GitError.cancelled
                }
                batch.removeAll(keepingCapacity: true)
            }
        } catch {
            throw deliveryError ?? error
        }
        if !batch.isEmpty { try deliver(batch) }
        let delivered = reachable.count
        return Summary(
            commits: delivered, packObjects: pack.objectCount, skippedObjects: pack.objectCount - delivered,
            deltaObjects: pack.deltaCount)
    }
}
