import Foundation

/// Where a pack's bytes are read from: a spooled file, or memory (tests, fuzzing).
protocol PackStorage {
    var byteCount: Int { get }
    /// Copies up to `buffer.count` bytes from `offset`; returns how many (0 only at the end).
    func read(at offset: Int, into buffer: UnsafeMutableRawBufferPointer) throws -> Int
}

struct MemoryPackStorage: PackStorage {
    let bytes: [UInt8]

    var byteCount: Int { bytes.count }

    func read(at offset: Int, into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        guard offset < bytes.count else { return 0 }
        let count = min(buffer.count, bytes.count - offset)
        bytes.withUnsafeBytes { buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[offset..<offset + count])) }
        return count
    }
}

/// A pack spooled to an unlinked temporary file (`PackSpoolWriter`); the
/// descriptor is closed when this is released.
final class FilePackStorage: PackStorage {
    private let descriptor: Int32
    let byteCount: Int

    init(descriptor: Int32, byteCount: Int) {
        self.descriptor = descriptor
        self.byteCount = byteCount
    }

    deinit { close(descriptor) }

    func read(at offset: Int, into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        while true {
            let count = pread(descriptor, buffer.baseAddress, buffer.count, off_t(offset))
            if count >= 0 { return count }
            if errno == EINTR { continue }
            throw GitError.temporaryFile("reading the spooled pack: \(String(cString: strerror(errno)))")
        }
    }
}
