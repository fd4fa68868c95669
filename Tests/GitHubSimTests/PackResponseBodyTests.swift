import GitHash
import MirrorTestSupport
import NIOCore
import Synchronization
import Testing

@testable import GitHubSim

/// The fetch response as the server pulls it: bounded pieces, one pack of exactly what the wants
/// reach, its SHA-1 right, every byte counted.
@Suite struct PackResponseBodyTests {
    struct Drained {
        var chunkSizes: [Int] = []
        var lines: [PacketLine] = []
        var pack: [UInt8] = []
        var counted = 0
    }

    static func drain(_ graph: SyntheticRepository, wants: [Int], fault: GitFault? = nil) -> Drained {
        let counted = Mutex(0)
        let body = PackResponseBody(
            graph: graph, wants: wants, useDeltas: true, fault: fault, countPackBytes: { count in counted.withLock { $0 += count } })
        var drained = Drained()
        var all: [UInt8] = []
        while let chunk = body.nextChunk() {
            drained.chunkSizes.append(chunk.readableBytes)
            all += chunk.readableBytesView
        }
        drained.lines = PacketLine.parse(all) ?? []
        for line in drained.lines.dropFirst() {
            if case .data(let payload) = line, payload.first == 1 { drained.pack += payload.dropFirst() }
        }
        drained.counted = counted.withLock { $0 }
        return drained
    }

    static func objectCount(_ pack: [UInt8]) -> Int {
        pack[8..<12].reduce(0) { $0 << 8 | Int($1) }
    }

    @Test func aLargePackComesInBoundedPiecesWithItsChecksum() {
        let graph = SyntheticRepository(spec: SyntheticSpec(commits: 5_000, seed: 2))
        let drained = Self.drain(graph, wants: [graph.headIndex])
        #expect(drained.chunkSizes.count > 10)
        #expect(drained.chunkSizes.allSatisfy { $0 <= PackResponseBody.chunkBytes + 8_192 })
        #expect(drained.lines.first?.text == "packfile" && drained.lines.last == .flush)
        #expect(Array(drained.pack.prefix(8)) == Array("PACK".utf8) + [0, 0, 0, 2])
        #expect(Self.objectCount(drained.pack) == 5_000)
        #expect(SHA1.hash(drained.pack.dropLast(20)) == Array(drained.pack.suffix(20)))
        #expect(drained.counted == drained.pack.count)
    }

    /// A side commit of a long-lived branch does not reach every older commit: the pack holds
    /// exactly what an honest walk over the parents finds.
    @Test func thePackHoldsWhatTheWantsReachAndNothingElse() {
        let graph = SyntheticRepository(spec: SyntheticSpec(commits: 600, shape: .realistic, seed: 3))
        let side = (300..<600).first(where: graph.isSideCommit(at:))!
        var seen: Set<Int> = [side]
        var stack = [side]
        while let node = stack.popLast() {
            for parent in graph.parentIndices(at: node) where seen.insert(parent).inserted { stack.append(parent) }
        }
        #expect(seen.count < side + 1)
        #expect(Self.objectCount(Self.drain(graph, wants: [side]).pack) == seen.count)
        #expect(Self.objectCount(Self.drain(graph, wants: [side, 10]).pack) == seen.union(0...10).count)
    }

    @Test func faultsBreakThePackTheWayTheySay() {
        let graph = SyntheticRepository(spec: SyntheticSpec(commits: 3_000, seed: 4))
        let truncated = Self.drain(graph, wants: [graph.headIndex], fault: .truncatedPack)
        #expect(truncated.lines.last != .flush && truncated.pack.count < Self.drain(graph, wants: [graph.headIndex]).pack.count)
        let badSum = Self.drain(graph, wants: [graph.headIndex], fault: .badPackChecksum)
        #expect(SHA1.hash(badSum.pack.dropLast(20)) != Array(badSum.pack.suffix(20)))
        let sideBand = Self.drain(graph, wants: [graph.headIndex], fault: .sideBandError)
        let errors = sideBand.lines.compactMap { line -> [UInt8]? in
            if case .data(let payload) = line, payload.first == 3 { return Array(payload.dropFirst()) }
            return nil
        }
        #expect(errors.count == 1 && sideBand.lines.last == .flush)
    }
}
