import GitHash
import Testing

@testable import MirrorCore

/// The pack parser on packs built byte by byte: what git writes, and what a
/// hostile server could send instead. Every bad pack is a `GitError`, never a trap.
@Suite struct PackReaderTests {
    static let base = PackBuilder.commit(message: "a base commit with a message long enough to copy from\n")

    func objects(_ bytes: [UInt8], limits: PackLimits = PackLimits()) throws -> [PackedObject] {
        let reader = try PackReader(storage: MemoryPackStorage(bytes: bytes), limits: limits)
        try reader.verifyChecksum()
        var objects: [PackedObject] = []
        try reader.forEachObject { objects.append($0) }
        return objects
    }

    func error(_ bytes: [UInt8], limits: PackLimits = PackLimits()) -> GitError? {
        do {
            _ = try objects(bytes, limits: limits)
            return nil
        } catch {
            return error as? GitError
        }
    }

    @Test func wholeAndDeltaObjectsResolveWithGitNames() throws {
        let delta = PackBuilder.delta(baseSize: Self.base.count, copy: 0..<Self.base.count - 1, insert: Array(" and more\n".utf8))
        let expected = Array(Self.base.dropLast()) + Array(" and more\n".utf8)
        var pack = PackBuilder()
        pack.entries = [
            .whole(type: 1, body: Self.base),
            .offsetDelta(baseIndex: 0, delta: delta),
            // A delta on a delta, by name this time.
            .referenceDelta(
                base: PackBuilder.hexBytes(PackBuilder.id(type: "commit", expected)),
                delta: PackBuilder.delta(baseSize: expected.count, copy: 0..<10, insert: Array("x".utf8))),
        ]
        let objects = try objects(pack.build().bytes)
        #expect(objects.map(\.type) == [.commit, .commit, .commit])
        #expect(objects[1].body == expected)
        #expect(objects[2].body == Array(expected[0..<10]) + Array("x".utf8))
        #expect(objects.map(\.id.hex) == objects.map { PackBuilder.id(type: "commit", $0.body) })
    }

    @Test func truncatedAnywhereIsAnError() {
        var pack = PackBuilder()
        pack.entries = [.whole(type: 1, body: Self.base), .whole(type: 1, body: PackBuilder.commit())]
        let bytes = pack.build().bytes
        for length in 0..<bytes.count {
            #expect(error(Array(bytes[0..<length])) != nil, "truncated to \(length)")
        }
        // Cut inside the objects, with a trailer that matches what is left: the parser itself must notice.
        for length in 0..<bytes.count - 20 {
            let cut = Array(bytes[0..<length])
            #expect(error(cut + SHA1.hash(cut)) != nil, "objects cut at \(length)")
        }
    }

    @Test func badChecksumIsRefused() {
        var pack = PackBuilder()
        pack.entries = [.whole(type: 1, body: Self.base)]
        var bytes = pack.build().bytes
        bytes[bytes.count - 1] ^= 1
        #expect(error(bytes) == .packChecksumMismatch)
        // A flipped byte inside the objects, with the trailer left alone.
        bytes = pack.build().bytes
        bytes[20] ^= 0x40
        #expect(error(bytes) == .packChecksumMismatch)
    }

    @Test func headerChecks() {
        var pack = PackBuilder()
        pack.entries = [.whole(type: 1, body: Self.base)]
        pack.version = 4
        #expect(error(pack.build().bytes) == .malformedPack("version 4 (only 2 and 3 exist)"))
        pack.version = 2
        pack.declaredCount = 2
        #expect(error(pack.build().bytes) == .malformedPack("the pack declares 2 objects but its data ends before them"))
        pack.declaredCount = 0
        #expect(error(pack.build().bytes) != nil)  // bytes left after the declared objects
        var bytes = pack.build().bytes
        bytes[0] = 0x51
        #expect(error(bytes) != nil)
    }

    @Test func deltaOutOfBoundsIsRefused() {
        var pack = PackBuilder()
        // Copies past the end of the base.
        pack.entries = [
            .whole(type: 1, body: Self.base),
            .offsetDelta(baseIndex: 0, delta: PackBuilder.delta(baseSize: Self.base.count, copy: 10..<Self.base.count + 5, insert: [])),
        ]
        #expect(error(pack.build().bytes)?.description.contains("copies") == true)
        // Declares a base size the base does not have.
        pack.entries[1] = .offsetDelta(baseIndex: 0, delta: PackBuilder.delta(baseSize: 3, copy: 0..<2, insert: []))
        #expect(error(pack.build().bytes)?.description.contains("base") == true)
        // Builds more than it declares.
        pack.entries[1] = .offsetDelta(
            baseIndex: 0, delta: PackBuilder.delta(baseSize: Self.base.count, copy: 0..<20, insert: [1, 2], resultSize: 20))
        #expect(error(pack.build().bytes)?.description.contains("more than") == true)
        // An offset base before the pack header.
        var raw = PackBuilder()
        let delta = PackBuilder.deflate(PackBuilder.delta(baseSize: 1, copy: 0..<1, insert: []))
        raw.entries = [.raw(PackBuilder.header(type: 6, size: 4) + PackBuilder.offsetEncoding(40) + delta)]
        #expect(error(raw.build().bytes)?.description.contains("outside the pack") == true)
        // A name that is not in the pack.
        raw.entries = [.referenceDelta(base: [UInt8](repeating: 7, count: 20), delta: [0, 0])]
        #expect(error(raw.build().bytes)?.description.contains("not earlier in the pack") == true)
    }

    @Test func hugeDeclaredSizesAreRefusedBeforeAllocating() {
        var pack = PackBuilder()
        // 2^50 bytes declared: refused from the header alone.
        pack.entries = [.raw(PackBuilder.header(type: 1, size: 1 << 50) + PackBuilder.deflate(Self.base))]
        #expect(error(pack.build().bytes) == .objectTooLarge(offset: 12, size: 1 << 50, limit: PackLimits().maximumObjectSize))
        // A size varint that never ends.
        pack.entries = [.raw([0x9F] + [UInt8](repeating: 0xFF, count: 20) + [0x01])]
        #expect(error(pack.build().bytes) != nil)
        // Under the limit but far more than the stream holds: refused when the stream ends short.
        pack.entries = [.raw(PackBuilder.header(type: 1, size: 30 << 20) + PackBuilder.deflate(Self.base))]
        #expect(error(pack.build().bytes)?.description.contains("not its declared") == true)
        // A delta whose result is declared huge.
        pack.entries = [
            .whole(type: 1, body: Self.base),
            .offsetDelta(baseIndex: 0, delta: PackBuilder.varint(Self.base.count) + PackBuilder.varint(1 << 40) + [0x91, 0, 1]),
        ]
        #expect(
            error(pack.build().bytes)
                == .objectTooLarge(offset: 12 + 2 + PackBuilder.deflate(Self.base).count, size: 1 << 40, limit: 32 << 20))
    }

    @Test func streamLongerThanDeclaredIsRefused() {
        var pack = PackBuilder()
        pack.entries = [.raw(PackBuilder.header(type: 1, size: 10) + PackBuilder.deflate(Self.base))]
        #expect(error(pack.build().bytes)?.description.contains("more than its declared") == true)
    }

    @Test func zlibGarbageAndInvalidTypes() {
        var pack = PackBuilder()
        pack.entries = [.raw(PackBuilder.header(type: 1, size: 5) + [0x78, 0x9C, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF])]
        #expect(error(pack.build().bytes)?.description.contains("does not inflate") == true)
        for type: UInt8 in [0, 5] {
            pack.entries = [.raw(PackBuilder.header(type: type, size: 1) + PackBuilder.deflate([1]))]
            #expect(error(pack.build().bytes)?.description.contains("invalid type") == true)
        }
    }

    @Test func longDeltaChainsAreBounded() throws {
        var pack = PackBuilder()
        pack.entries = [.whole(type: 1, body: Self.base)]
        for _ in 0..<30 {
            pack.entries.append(
                .offsetDelta(baseIndex: 0, delta: PackBuilder.delta(baseSize: Self.base.count, copy: 0..<Self.base.count, insert: [])))
        }
        var limits = PackLimits()
        limits.baseCacheBytes = 0  // every base is rebuilt from the chain
        #expect(try objects(pack.build().bytes, limits: limits).count == 31)
        limits.maximumDeltaChain = 5
        #expect(error(pack.build().bytes, limits: limits)?.description.contains("chain longer") == true)
    }

    /// Objects read by offset, newest first or oldest first, equal those of the forward pass.
    @Test func objectsByOffsetInAnyOrder() throws {
        var pack = PackBuilder()
        pack.entries = [.whole(type: 1, body: Self.base)]
        for index in 0..<40 {
            let previous = index == 0 ? Self.base.count : Self.base.count + 1
            pack.entries.append(
                .offsetDelta(
                    baseIndex: 0, delta: PackBuilder.delta(baseSize: previous, copy: 0..<Self.base.count, insert: [UInt8(index + 1)])))
        }
        for cache in [0, 1 << 20] {
            var limits = PackLimits()
            limits.baseCacheBytes = cache
            let forward = try objects(pack.build().bytes, limits: limits)
            #expect(forward.count == 41)
            let reader = try PackReader(storage: MemoryPackStorage(bytes: pack.build().bytes), limits: limits)
            for object in forward.reversed() + forward {
                let again = try reader.object(at: object.offset)
                #expect(again.body == object.body && again.type == object.type)
            }
            #expect(throws: GitError.self) { try reader.object(at: 3) }
            #expect(throws: GitError.self) { try reader.object(at: forward[1].offset + 1) }
        }
    }
}

extension PackBuilder {
    static func hexBytes(_ hex: String) -> [UInt8] {
        let digits = Array(hex.utf8)
        return stride(from: 0, to: digits.count, by: 2).map { UInt8(String(decoding: digits[$0..<$0 + 2], as: UTF8.self), radix: 16)! }
    }
}
