import Foundation

/// Writes a pack, as it arrives, to a temporary file that is unlinked at
/// once (nothing is left behind, whatever ends the process), so memory does
/// not grow with the pack. `finish()` hands the file over for reading.
final class PackSpoolWriter {
    private var descriptor: Int32
    private var buffer: [UInt8] = []
    private var written = 0
    private let limit: Int
    private static let bufferSize = 1 << 18
    /// How much of the pack is in the file, for a reader of it meanwhile (`growingStorage`).
    let arrival = PackArrival()

    /// - Parameters:
    ///   - directory: where the file is created (it is unlinked at once).
    ///   - limit: the most bytes the pack may have.
    init(directory: String, limit: Int) throws {
        var template =
            Array((directory.hasSuffix("/") ? directory : directory + "/").utf8CString.dropLast())
            + Array("commits-mirror-pack-XXXXXX".utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else {
            throw GitError.temporaryFile("in \(directory): \(String(cString: strerror(errno)))")
        }
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        unlink(template)
        descriptor = fd
        self.limit = limit
        buffer.reserveCapacity(Self.bufferSize)
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
    }

    var byteCount: Int { written + buffer.count }

    func write<Bytes: Collection>(_ bytes: Bytes) throws where Bytes.Element == UInt8 {
        guard byteCount + bytes.count <= limit else { throw GitError.packTooLarge(limit: limit) }
        buffer.append(contentsOf: bytes)
        if buffer.count >= Self.bufferSize { try flush() }
    }

    /// The pack read while it comes: each read waits for its bytes.
    func growingStorage() throws -> GrowingPackStorage {
        try GrowingPackStorage(spool: descriptor, arrival: arrival)
    }

    /// The whole pack for reading; this writer is spent.
    func finish() throws -> FilePackStorage {
        try flush()
        arrival.finished(byteCount: written)
        let storage = FilePackStorage(descriptor: descriptor, byteCount: written)
        descriptor = -1
        return storage
    }

    private func flush() throws {
        var offset = 0
        while offset < buffer.count {
            let count = buffer.withUnsafeBytes { Foundation.write(descriptor, $0.baseAddress! + offset, $0.count - offset) }
            if count < 0 {
                if errno == EINTR { continue }
                throw GitError.temporaryFile("writing: \(String(cString: strerror(errno)))")
            }
            offset += count
        }
        written += buffer.count
        buffer.removeAll(keepingCapacity: true)
        arrival.wrote(upTo: written)
    }
}
