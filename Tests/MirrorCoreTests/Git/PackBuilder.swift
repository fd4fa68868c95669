import CZlib
import GitHash

@testable import MirrorCore

/// Writes packs byte by byte for tests, including ones no git would write.
struct PackBuilder {
    enum Entry {
        case whole(type: UInt8, body: [UInt8])
        /// A delta against the entry `baseIndex` entries earlier in the pack, by offset.
        case offsetDelta(baseIndex: Int, delta: [UInt8])
        case referenceDelta(base: [UInt8], delta: [UInt8])
        /// Bytes written as they are, in place of an object.
        case raw([UInt8])
    }

    var entries: [Entry] = []
    var declaredCount: Int?
    var version: UInt32 = 2

    /// The pack, its offsets per entry.
    func build() -> (bytes: [UInt8], offsets: [Int]) {
        var bytes = Array("PACK".utf8)
        bytes += bigEndian(version)
        bytes += bigEndian(UInt32(declaredCount ?? entries.count))
        var offsets: [Int] = []
        for entry in entries {
            let offset = bytes.count
            offsets.append(offset)
            switch entry {
            case .whole(let type, let body):
                bytes += Self.header(type: type, size: body.count) + Self.deflate(body)
            case .offsetDelta(let baseIndex, let delta):
                bytes += Self.header(type: 6, size: delta.count) + Self.offsetEncoding(offset - offsets[offsets.count - 2 - baseIndex])
                bytes += Self.deflate(delta)
            case .referenceDelta(let base, let delta):
                bytes += Self.header(type: 7, size: delta.count) + base + Self.deflate(delta)
            case .raw(let raw):
                bytes += raw
            }
        }
        return (bytes + SHA1.hash(bytes), offsets)
    }

    static func header(type: UInt8, size: Int) -> [UInt8] {
        var size = size
        var byte = type << 4 | UInt8(size & 15)
        size >>= 4
        var out: [UInt8] = []
        while size > 0 {
            out.append(byte | 0x80)
            byte = UInt8(size & 0x7F)
            size >>= 7
        }
        out.append(byte)
        return out
    }

    static func offsetEncoding(_ distance: Int) -> [UInt8] {
        var distance = distance
        var out = [UInt8(distance & 0x7F)]
        distance >>= 7
        while distance > 0 {
            distance -= 1
            out.insert(UInt8(0x80 | (distance & 0x7F)), at: 0)
            distance >>= 7
        }
        return out
    }

    static func varint(_ value: Int) -> [UInt8] {
        var value = value
        var out: [UInt8] = []
        repeat {
            var byte = UInt8(value & 0x7F)
            value >>= 7
            if value > 0 { byte |= 0x80 }
            out.append(byte)
        } while value > 0
        return out
    }

    /// A delta: copy `copy` from the base, then insert `insert`.
    static func delta(baseSize: Int, copy: Range<Int>, insert: [UInt8], resultSize: Int? = nil) -> [UInt8] {
        var out = varint(baseSize) + varint(resultSize ?? (copy.count + insert.count))
        var op: UInt8 = 0x80
        var args: [UInt8] = []
        for i in 0..<4 where (copy.lowerBound >> (8 * i)) & 0xFF != 0 {
            op |= 1 << i
            args.append(UInt8((copy.lowerBound >> (8 * i)) & 0xFF))
        }
        for i in 0..<3 where (copy.count >> (8 * i)) & 0xFF != 0 {
            op |= 0x10 << i
            args.append(UInt8((copy.count >> (8 * i)) & 0xFF))
        }
        out += [op] + args
        if !insert.isEmpty { out += [UInt8(insert.count)] + insert }
        return out
    }

    static func deflate(_ bytes: [UInt8]) -> [UInt8] {
        var stream = z_stream()
        precondition(czlib_deflate_init_zlib(&stream, 6) == Z_OK)
        defer { deflateEnd(&stream) }
        var output = [UInt8](repeating: 0, count: Int(deflateBound(&stream, UInt(bytes.count))) + 16)
        var input = bytes
        let produced = input.withUnsafeMutableBufferPointer { input in
            output.withUnsafeMutableBufferPointer { out in
                stream.next_in = input.baseAddress
                stream.avail_in = UInt32(input.count)
                stream.next_out = out.baseAddress
                stream.avail_out = UInt32(out.count)
                precondition(CZlib.deflate(&stream, Z_FINISH) == Z_STREAM_END)
                return out.count - Int(stream.avail_out)
            }
        }
        return Array(output[0..<produced])
    }

    private func bigEndian(_ value: UInt32) -> [UInt8] {
        [
            UInt8(value >> 24), UInt8(truncatingIfNeeded: value >> 16), UInt8(truncatingIfNeeded: value >> 8),
            UInt8(truncatingIfNeeded: value),
        ]
    }

    /// A commit object's bytes.
    static func commit(tree: String = String(repeating: "a", count: 40), parents: [String] = [], message: String = "subject\n") -> [UInt8] {
        var text = "tree \(tree)\n"
        for parent in parents { text += "parent \(parent)\n" }
        text += "author A U Thor <a@example.com> 1700000000 +0100\ncommitter C O Mitter <c@example.com> 1700000100 -0200\n\n\(message)"
        return Array(text.utf8)
    }

    /// A parentless commit, the root the pack tests' histories grow from, and its name.
    static let root = commit(message: "root\n")
    static let rootID = id(type: "commit", root)

    static func id(type: String, _ body: [UInt8]) -> String {
        SHA1.hex(SHA1.hash(Array("\(type) \(body.count)\0".utf8) + body))
    }
}
