import Foundation

/// How much of a pack has reached its spool file, shared by the transfer
/// thread that writes it (`PackSpoolWriter`) and the thread that reads it
/// meanwhile (`GrowingPackStorage`), so the pack's first pass runs while
/// the rest of it comes, as git's `index-pack` does.
final class PackArrival: @unchecked Sendable {
    // Every field below is read and written with `condition` locked.
    private let condition = NSCondition()
    private var written = 0
    private var total: Int?
    private var abandoned = false

    /// `count` bytes are in the file now.
    func wrote(upTo count: Int) {
        condition.withLock { written = count }
        condition.broadcast()
    }

    /// The pack is whole: `count` bytes.
    func finished(byteCount count: Int) {
        condition.withLock {
            written = count
            total = count
        }
        condition.broadcast()
    }

    /// The download failed or was cancelled: a reader waiting gives up.
    func abandon() {
        condition.withLock { abandoned = true }
        condition.broadcast()
    }

    /// Waits until a byte at `offset` is in the file, or none ever will be:
    /// the bytes readable from `offset` now (0 at the pack's end).
    func readable(from offset: Int) throws -> Int {
        condition.lock()
        defer { condition.unlock() }
        while written <= offset, total == nil, !abandoned { condition.wait() }
        if abandoned { throw GitError.cancelled }
        return max(0, written - offset)
    }
}

/// The spool file read while it is still being written: a read waits for the
/// bytes it asks for. Its size is unknown until the pack is whole, so a
/// reader over it cannot tell object data from the trailer
/// (`PackReader.forEachObject(checkingTheEnd: false)`); what it finds is only
/// used once the whole pack has checked out.
final class GrowingPackStorage: PackStorage {
    private let descriptor: Int32
    private let arrival: PackArrival

    /// Reads through its own descriptor of the spool file (`dup`).
    init(spool descriptor: Int32, arrival: PackArrival) throws {
        let own = dup(descriptor)
        guard own >= 0 else { throw GitError.temporaryFile("reading the pack as it comes: \(String(cString: strerror(errno)))") }
        self.descriptor = own
        self.arrival = arrival
    }

    deinit { close(descriptor) }

    /// Not known yet: as far as the reader can tell, the pack goes on.
    var byteCount: Int { Int.max / 2 }

    func read(at offset: Int, into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        let readable = try arrival.readable(from: offset)
        guard readable > 0 else { return 0 }
        let wanted = min(buffer.count, readable)
        while true {
            let count = pread(descriptor, buffer.baseAddress, wanted, off_t(offset))
            if count >= 0 { return count }
            if errno == EINTR { continue }
            throw GitError.temporaryFile("reading the spooled pack: \(String(cString: strerror(errno)))")
        }
    }
}
