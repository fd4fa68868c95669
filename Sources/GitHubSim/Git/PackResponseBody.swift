// The `packfile` section of a fetch response, written as the connection drains it: side-band-64k
// packets carrying a version 2 pack of the commits reachable from the wants, newest first, most
// of them OFS_DELTAs against the object written just before, then any annotated tag objects
// asked for, then the pack's SHA-1. Only a few
// objects are held at a time, so a million-commit pack costs no more memory than a small one.

import Foundation
import GitHash
import NIOCore

final class PackResponseBody: StreamedBody, @unchecked Sendable {
    // @unchecked: the server pulls chunks from the one event loop of the connection, in order.

    /// Each chunk carries about this much pack data.
    static let chunkBytes = 60_000
    /// A full object starts every this many, so no delta chain is longer (git's default depth).
    static let maximumDeltaDepth = 50

    private let graph: any GitObjectGraph
    /// `reached[node]`: the node is in the pack. Objects go out in the sweep's order, newest first.
    private let reached: [Bool]
    /// The sweep's direction (-1 or +1) and the node just past its end.
    private let step: Int
    private let end: Int
    private let objectCount: Int
    /// Annotated tag objects, sent whole after the commits.
    private let tagObjects: [TagObject]
    private let useDeltas: Bool
    private let fault: GitFault?
    /// The request's `Authorization`, which `echoedErrorBand` sends back.
    private let authorization: String?
    private let countPackBytes: @Sendable (Int) -> Void

    private var next: Int
    private var written = 0
    private var hasher = SHA1()
    private var packOffset = 0
    private var base: (offset: Int, body: [UInt8])?
    private var depth = 0
    private var state = State.start
    private let deflater = ZlibDeflater()
    /// Pack bytes made but not yet sent (`trickledPack` sends them one at a time).
    private var trickle: [UInt8] = []
    private var trickled = 0
    private var trailerFlushHeld = false

    /// The pause between pieces for the stalling faults.
    var pauseBetweenChunks: Duration {
        switch fault {
        case .endlessProgress: .milliseconds(50)
        case .trickledPack: .milliseconds(500)
        default: .zero
        }
    }

    private enum State {
        case start, objects, trailer, done
    }

    /// - Parameters:
    ///   - wants: nodes the client asked for; the pack holds everything they reach.
    ///   - countPackBytes: told the size of each piece of pack data sent.
    ///   - tags: annotated tag objects the client asked for, sent after the commits.
    ///   - followedTags: tag objects sent too when the pack holds the commit beside them (`include-tag`).
    init(
        graph: any GitObjectGraph, wants: [Int], tags: [TagObject] = [], followedTags: [(object: TagObject, node: Int)] = [],
        useDeltas: Bool, fault: GitFault?, authorization: String? = nil, countPackBytes: @escaping @Sendable (Int) -> Void
    ) {
        // The sweep meets every child before its parents, so one pass finds all the wants reach.
        let first: Int
        let size: Int
        switch graph.nodeOrder {
        case .parentsFirst:
            first = wants.max() ?? -1
            (size, step, end) = (first + 1, -1, -1)
        case .childrenFirst(let count):
            first = wants.min() ?? count
            (size, step, end) = (count, 1, count)
        }
        var reached = [Bool](repeating: false, count: size)
        for want in wants { reached[want] = true }
        var count = 0
        for node in stride(from: first, to: end, by: step) where reached[node] {
            count += 1
            for parent in graph.parents(of: node) { reached[parent] = true }
        }
        var tagObjects = tags
        for (object, node) in followedTags where node < reached.count && reached[node] && !tagObjects.contains(object) {
            tagObjects.append(object)
        }
        self.graph = graph
        self.reached = reached
        self.tagObjects = tagObjects
        objectCount = count + tagObjects.count
        self.useDeltas = useDeltas
        self.fault = fault
        self.authorization = authorization
        self.countPackBytes = countPackBytes
        next = first
    }

    func nextChunk() -> ByteBuffer? {
        switch fault {
        case .trickledPack: return nextTrickledChunk()
        case .endlessProgress where state != .start:
            var out = ByteBuffer()
            out.writeSideBand(2, Array(String(repeating: "Counting objects: still counting\r", count: 32).utf8.prefix(1024))[...])
            return out
        default: return nextWholeChunk()
        }
    }

    /// `trickledPack`: the pack one byte a packet, the lines around it in their places.
    private func nextTrickledChunk() -> ByteBuffer? {
        while trickled == trickle.count {
            if trailerFlushHeld {
                trailerFlushHeld = false
                var out = ByteBuffer()
                out.writeFlush()
                return out
            }
            guard let chunk = nextWholeChunk() else { return nil }
            if chunk.readableBytes > 0 { return chunk }  // the packfile line; its pack follows
        }
        var out = ByteBuffer()
        out.writeSideBand(1, trickle[trickled...].prefix(1))
        trickled += 1
        countPackBytes(1)
        return out
    }

    private func nextWholeChunk() -> ByteBuffer? {
        var out = ByteBuffer()
        var pack: [UInt8] = []
        switch state {
        case .done:
            return nil
        case .start:
            out.writePacketLine("packfile\n")
            pack += "PACK".utf8
            pack += [0, 0, 0, 2]
            pack += withUnsafeBytes(of: UInt32(objectCount).bigEndian, Array.init)
            state = objectCount > 0 ? .objects : .trailer
        case .objects:
            while pack.count < Self.chunkBytes, next != end {
                if reached[next] { appendObject(next, into: &pack) }
                next += step
            }
            if next == end {
                for object in tagObjects {
                    PackEncoding.objectHeader(type: PackEncoding.tagType, size: object.body.count, into: &pack)
                    pack += deflater.compress(object.body)
                    written += 1
                }
                state = .trailer
            }
            if written * 2 >= objectCount, let fault, [.truncatedPack, .sideBandError, .echoedErrorBand].contains(fault) {
                send(pack, into: &out)
                state = .done
                if fault == .sideBandError {
                    out.writeSideBand(3, Array("error: github-sim: simulated failure while writing the pack\n".utf8)[...])
                    out.writeFlush()
                } else if fault == .echoedErrorBand {
                    let auth = authorization ?? "-"
                    let password = Data(base64Encoded: String(auth.drop { $0 != " " }.dropFirst())).map {
                        String(decoding: $0, as: UTF8.self)
                    }
                    let echo = "error: github-sim: failed for \(auth) (\(password ?? "-"))\n"
                    out.writeSideBand(3, Array(echo.utf8)[...])
                    out.writeFlush()
                }
                // A truncated pack: the response simply ends, without the rest or the flush.
                return out
            }
        case .trailer:
            var digest = hasher.finalize()
            if fault == .badPackChecksum { digest[19] ^= 0xFF }
            send(digest, into: &out, hashed: false)
            if fault == .trickledPack {
                trailerFlushHeld = true  // after the trickled digest
            } else {
                out.writeFlush()
            }
            state = .done
            return out
        }
        send(pack, into: &out)
        return out
    }

    private func send(_ pack: [UInt8], into out: inout ByteBuffer, hashed: Bool = true) {
        guard !pack.isEmpty else { return }
        if hashed { hasher.update(pack) }
        packOffset += pack.count
        if fault == .trickledPack {
            trickle = Array(trickle[trickled...]) + pack
            trickled = 0
            return
        }
        out.writeSideBand(1, pack[...])
        countPackBytes(pack.count)
    }

    private func appendObject(_ node: Int, into pack: inout [UInt8]) {
        var body = graph.commitObject(of: node)
        if fault == .alteredCommit && written == 0 {
            // The tip's content changes, so its name is no longer the one ls-refs announced.
            body += " (altered by github-sim)".utf8
        }
        let offset = packOffset + pack.count
        if useDeltas, let base, depth < Self.maximumDeltaDepth - 1 {
            let delta = PackEncoding.delta(from: base.body, to: body)
            PackEncoding.objectHeader(type: PackEncoding.offsetDeltaType, size: delta.count, into: &pack)
            PackEncoding.offsetDistance(offset - base.offset, into: &pack)
            pack += deflater.compress(delta)
            depth += 1
        } else {
            PackEncoding.objectHeader(type: PackEncoding.commitType, size: body.count, into: &pack)
            pack += deflater.compress(body)
            depth = 0
        }
        base = (offset, body)
        written += 1
    }
}
