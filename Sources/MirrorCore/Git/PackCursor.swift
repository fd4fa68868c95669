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

    /// How far before a sought offset a fresh buffer starts, for readers that go backwards.
    private let backwardReach: Int

    /// - Parameter backwardReach: for random access that mostly moves towards
    ///   the start of the pack (commits read oldest first), so a seek just
    ///   before the previous one still finds its bytes buffered.
    init(storage: any PackStorage, bufferSize: Int = 1 << 16, backwardReach: Int = 0) {
        self.storage = storage
        self.end = max(0, storage.byteCount - 20)
        self.buffer = [UInt8](repeating: 0, count: bufferSize)
        self.backwardReach = min(backwardReach, bufferSize / 2)
    }

    var offset: Int { bufferOffset + position }

    func seek(to offset: Int) throws {
        if offset >= bufferOffset, offset <= bufferOffset + bufferCount {
            position = offset - bufferOffset
            return
        }
        let start = max(0, min(offset, end) - backwardReach)
        bufferCount = 0
        position = 0
        bufferOffset = offset
        guard start < offset else { return }  // filled by the next read
        bufferOffset = start
        try fill()
        // Past the data: the next read finds nothing buffered and says where.
        guard offset <= bufferOffset + bufferCount else {
            bufferOffset = offset
            bufferCount = 0
            return
        }
        position = offset - bufferOffset
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
        bufferOffset += bufferCount
        bufferCount = 0
        position = 0
        try fill()
    }

    /// Reads into the buffer from `bufferOffset`, up to the trailer.
    private func fill() throws {
        let start = bufferOffset
        let wanted = min(buffer.count, end - start)
        guard wanted > 0 else {
            throw GitError.malformedPack("truncated: object data runs into the trailer at offset \(start)")
        }
        let count = try buffer.withUnsafeMutableBytes { (bytes) throws in
            try storage.read(at: start, into: UnsafeMutableRawBufferPointer(rebasing: bytes[0..<wanted]))
        }
        guard count > 0 else { throw GitError.malformedPack("truncated at offset \(start)") }
        bufferCount = count
    }
}
