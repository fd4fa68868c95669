/// Applies a git delta (gitformat-pack(5), "Deltified representation"): the
/// base's size and the result's size as varints, then copy-from-base and
/// insert-literal instructions. Every size and range is checked before use.
enum DeltaInstructions {
    static func apply(_ delta: [UInt8], to base: [UInt8], limit: Int, objectOffset: Int) throws -> [UInt8] {
        try delta.withUnsafeBufferPointer { (delta) throws in
            try base.withUnsafeBufferPointer { (base) throws in
                try apply(delta, to: base, limit: limit, objectOffset: objectOffset)
            }
        }
    }

    private static func apply(
        _ delta: UnsafeBufferPointer<UInt8>, to base: UnsafeBufferPointer<UInt8>, limit: Int, objectOffset: Int
    ) throws -> [UInt8] {
        func fail(_ detail: String) -> GitError {
            .malformedPack("the delta at offset \(objectOffset) \(detail)")
        }
        var index = 0
        func varint() throws -> Int {
            var value = 0
            var shift = 0
            while true {
                guard index < delta.count else { throw fail("ends inside its header") }
                let byte = delta[index]
                index += 1
                guard shift <= 56 else { throw fail("has a size varint too long") }
                value |= Int(byte & 0x7F) << shift
                shift += 7
                if byte & 0x80 == 0 { return value }
            }
        }
        let baseSize = try varint()
        guard baseSize == base.count else {
            throw fail("expects a \(baseSize)-byte base; the base has \(base.count)")
        }
        let resultSize = try varint()
        guard resultSize <= limit else {
            throw GitError.objectTooLarge(offset: objectOffset, size: resultSize, limit: limit)
        }
        var result = [UInt8]()
        result.reserveCapacity(resultSize)
        while index < delta.count {
            let op = delta[index]
            index += 1
            if op & 0x80 != 0 {
                var copyOffset = 0
                var copySize = 0
                for bit in 0..<4 where op & (1 << bit) != 0 {
                    guard index < delta.count else { throw fail("ends inside a copy instruction") }
                    copyOffset |= Int(delta[index]) << (8 * bit)
                    index += 1
                }
                for bit in 0..<3 where op & (0x10 << bit) != 0 {
                    guard index < delta.count else { throw fail("ends inside a copy instruction") }
                    copySize |= Int(delta[index]) << (8 * bit)
                    index += 1
                }
                if copySize == 0 { copySize = 0x10000 }
                guard copyOffset + copySize <= base.count else {
                    throw fail("copies \(copySize) bytes from offset \(copyOffset) of a \(base.count)-byte base")
                }
                guard result.count + copySize <= resultSize else { throw fail("builds more than its declared \(resultSize) bytes") }
                result += base[copyOffset..<copyOffset + copySize]
            } else if op != 0 {
                let count = Int(op)
                guard index + count <= delta.count else { throw fail("ends inside an insert instruction") }
                guard result.count + count <= resultSize else { throw fail("builds more than its declared \(resultSize) bytes") }
                result += delta[index..<index + count]
                index += count
            } else {
                throw fail("uses the reserved instruction 0")
            }
        }
        guard result.count == resultSize else {
            throw fail("builds \(result.count) bytes, not its declared \(resultSize)")
        }
        return result
    }
}
