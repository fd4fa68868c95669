// The byte formats of a pack (gitformat-pack): object headers, OFS_DELTA distances and the
// delta a simulator writes (copy the base's common prefix and suffix, insert the middle).

enum PackEncoding {
    static let commitType: UInt8 = 1
    static let tagType: UInt8 = 4
    static let offsetDeltaType: UInt8 = 6

    /// Type in bits 4–6 of the first byte, the size in its low 4 bits then 7 bits a byte.
    static func objectHeader(type: UInt8, size: Int, into out: inout [UInt8]) {
        var size = size
        var byte = type << 4 | UInt8(size & 15)
        size >>= 4
        while size > 0 {
            out.append(byte | 0x80)
            byte = UInt8(size & 0x7F)
            size >>= 7
        }
        out.append(byte)
    }

    /// An OFS_DELTA's distance back to its base: big-endian base-128, each continuation adding 1.
    static func offsetDistance(_ distance: Int, into out: inout [UInt8]) {
        var distance = distance
        var bytes = [UInt8(distance & 0x7F)]
        distance >>= 7
        while distance > 0 {
            distance -= 1
            bytes.append(UInt8(0x80 | (distance & 0x7F)))
            distance >>= 7
        }
        out += bytes.reversed()
    }

    /// A delta that rebuilds `target` from `base`: the common prefix and suffix are copied, the
    /// middle inserted.
    static func delta(from base: [UInt8], to target: [UInt8]) -> [UInt8] {
        var prefix = 0
        let limit = min(base.count, target.count)
        while prefix < limit, base[prefix] == target[prefix] { prefix += 1 }
        var suffix = 0
        while suffix < limit - prefix, base[base.count - 1 - suffix] == target[target.count - 1 - suffix] { suffix += 1 }
        var out: [UInt8] = []
        out.reserveCapacity(target.count - prefix - suffix + 32)
        sizeVarint(base.count, into: &out)
        sizeVarint(target.count, into: &out)
        copy(offset: 0, count: prefix, into: &out)
        var middle = target[prefix..<(target.count - suffix)]
        while !middle.isEmpty {
            let piece = middle.prefix(127)
            out.append(UInt8(piece.count))
            out += piece
            middle = middle.dropFirst(piece.count)
        }
        copy(offset: base.count - suffix, count: suffix, into: &out)
        return out
    }

    /// Little-endian base-128, as a delta states its base and result sizes.
    private static func sizeVarint(_ value: Int, into out: inout [UInt8]) {
        var value = value
        repeat {
            var byte = UInt8(value & 0x7F)
            value >>= 7
            if value > 0 { byte |= 0x80 }
            out.append(byte)
        } while value > 0
    }

    /// Copy instructions of at most 0xFFFF bytes each (a size of 0 would mean 0x10000).
    private static func copy(offset: Int, count: Int, into out: inout [UInt8]) {
        var offset = offset
        var remaining = count
        while remaining > 0 {
            let size = min(remaining, 0xFFFF)
            var instruction: UInt8 = 0x80
            var operands: [UInt8] = []
            for k in 0..<4 where (offset >> (8 * k)) & 0xFF != 0 {
                instruction |= 1 << k
                operands.append(UInt8((offset >> (8 * k)) & 0xFF))
            }
            for k in 0..<2 where (size >> (8 * k)) & 0xFF != 0 {
                instruction |= 1 << (4 + k)
                operands.append(UInt8((size >> (8 * k)) & 0xFF))
            }
            out.append(instruction)
            out += operands
            offset += size
            remaining -= size
        }
    }
}
