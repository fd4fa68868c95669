// libFuzzer target for the pack reader (Sources/MirrorCore/Git: PackReader, PackCursor,
// Inflater, DeltaInstructions) and what reads history from it (PackHistoryReader,
// PackCommitIndex, the commit parser), compiled together by Tests/Fuzz/run.sh with
// zlib, the GitHash and SQLite modules. A pack comes straight from the network: any bytes
// must read or be refused with an error, within the limits, never crash or hang.

import GitHash

@_cdecl("LLVMFuzzerTestOneInput")
public func packFuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var bytes = Array(UnsafeBufferPointer(start: data, count: size))
    // A valid trailer half of the time, so inputs get past the checksum to the objects.
    if size % 2 == 0, size >= 20 {
        bytes.removeLast(20)
        bytes += SHA1.hash(bytes)
    }
    var limits = PackLimits()
    limits.maximumObjectSize = 1 << 20
    limits.maximumDeltaChain = 64
    limits.baseCacheBytes = 1 << 16
    let storage = MemoryPackStorage(bytes: bytes)
    var firstCommit: ObjectID?
    do {
        let reader = try PackReader(storage: storage, limits: limits)
        try reader.verifyChecksum()
        var objects: [(offset: Int, type: PackObjectType, body: [UInt8])] = []
        try reader.forEachObject { object in
            precondition(object.body.count <= limits.maximumObjectSize, "an object over the limit")
            precondition(object.id == PackReader.objectID(type: object.type, body: object.body), "a name that is not the content's")
            if object.type == .commit, firstCommit == nil { firstCommit = object.id }
            objects.append((object.offset, object.type, object.body))
        }
        // Read again by offset, last first, as the history's second pass does: the same objects.
        for object in objects.reversed() {
            let again = try reader.object(at: object.offset)
            precondition(again.type == object.type && again.body == object.body, "object at \(object.offset) read differently")
        }
    } catch {
        return 0
    }
    guard let firstCommit else { return 0 }
    PackCommitIndexes.registerSQLite()
    var history = PackHistoryReader()
    history.limits = limits
    var delivered = 0
    if let summary = try? history.read(storage, tip: firstCommit, deliver: { delivered += $0.count }) {
        precondition(summary.commits == delivered, "delivered \(delivered) but counted \(summary.commits)")
    }
    // With its trees: whatever they hold, a batch's changes are its commits' or the read throws.
    history.readsChanges = true
    _ = try? history.read(storage, tips: [firstCommit]) { commits, changes in
        precondition(commits.count == changes.count, "\(commits.count) commits with \(changes.count) changes")
    }
    return 0
}
