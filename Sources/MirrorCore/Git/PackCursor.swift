/// Reads a pack's storage forward from an offset through a small buffer, never
/// past the trailing checksum.
final class PackCursor {
    private let storage: any PackStorage
    /// Where object data ends: the 20-byte trailer is not object data.
    let end: Int
    private var buffer: [UInt8]
    private var bufferOffset = 0
    private var bufferCount = 0
    private var position = 0

    init(storage: any PackStorage, bufferSize: Int = 1 << 16) {
        self.storage = storage
        self.end = max(0, storage.byteCount - 20)
        self.buffer = [UInt8](repeating: 0, count: bufferSize)
    }

    var offset: Int { bufferOffset + position }

    func seek(to offset: Int) {
        if offset >= bufferOffset, offset <= bufferOffset + bufferCount {
            position = offset - bufferOffset
        } else {
            bufferOffset = offset
            bufferCount = 0
            position = 0
        }
    }

    func readByte() throws -> UInt8 {
        if position == bufferCount { try refill() }
        let byte = buffer[position]
        position += 1
        return byte
    }

    func readBytes(_ count: Int) throws -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count)
        while bytes.count < count {
            if position == bufferCount { try refill() }
            let take = min(count - bytes.count, bufferCount - position)
            bytes += buffer[position..<position + take]
            position += take
        }
        return bytes
    }

    /// Lends the buffered bytes not yet consumed (refilling when none are left);
    /// `body` returns how many it consumed.
    func consume<T>(_ body: (UnsafeRawBufferPointer) throws -> (consumed: Int, result: T)) throws -> T {
        if position == bufferCount { try refill() }
        let (consumed, result) = try buffer.withUnsafeBytes { (bytes) throws in
            try body(UnsafeRawBufferPointer(rebasing: bytes[position..<bufferCount]))
        }
        position += consumed
        return result
    }

    private func refill() throws {
        let start = bufferOffset + bufferCount
        let wanted = min(buffer.count, end - start)
        guard wanted > 0 else {
            throw GitError.malformedPack("truncated: object data runs into the trailer at offset \(start)")
        }
        let count = try buffer.withUnsafeMutableBytes { (bytes) throws in
            try storage.read(at: start, into: UnsafeMutableRawBufferPointer(rebasing: bytes[0..<wanted]))
        }
        guard count > 0 else { throw GitError.malformedPack("truncated at offset \(start)") }
        bufferOffset = start
        bufferCount = count
        position = 0
    }
}
