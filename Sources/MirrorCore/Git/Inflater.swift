import CZlib

/// One zlib inflate stream, reset for each pack object. A `final class`: zlib
/// keeps a pointer back to its `z_stream`, which must therefore never move.
final class Inflater {
    private let stream: UnsafeMutablePointer<z_stream>

    init() throws {
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        guard czlib_inflate_init_zlib(stream) == Z_OK else {
            stream.deallocate()
            throw GitError.malformedPack("zlib could not be initialised")
        }
    }

    deinit {
        inflateEnd(stream)
        stream.deallocate()
    }

    /// Inflates the zlib stream at the cursor, which must produce exactly
    /// `size` bytes (the object header's size), and leaves the cursor just past
    /// it. Memory grows with what is produced, never with what is declared.
    func inflate(from cursor: PackCursor, size: Int, objectOffset: Int) throws -> [UInt8] {
        inflateReset(stream)
        // One spare byte: output past `size` shows up as a full buffer, not a silent overrun.
        var output = [UInt8](repeating: 0, count: min(size, 1 << 20) + 1)
        var produced = 0
        while true {
            let status = try cursor.consume { (input) throws -> (consumed: Int, result: Int32) in
                output.withUnsafeMutableBytes { out in
                    stream.pointee.next_in = UnsafeMutablePointer(mutating: input.baseAddress!.assumingMemoryBound(to: UInt8.self))
                    stream.pointee.avail_in = UInt32(input.count)
                    stream.pointee.next_out = out.baseAddress!.assumingMemoryBound(to: UInt8.self) + produced
                    stream.pointee.avail_out = UInt32(out.count - produced)
                    let status = CZlib.inflate(stream, Z_NO_FLUSH)
                    produced = out.count - Int(stream.pointee.avail_out)
                    return (input.count - Int(stream.pointee.avail_in), status)
                }
            }
            guard produced <= size else {
                throw GitError.malformedPack("the object at offset \(objectOffset) inflates to more than its declared \(size) bytes")
            }
            switch status {
            case Z_STREAM_END:
                guard produced == size else {
                    throw GitError.malformedPack(
                        "the object at offset \(objectOffset) inflates to \(produced) bytes, not its declared \(size)")
                }
                output.removeLast(output.count - size)
                return output
            case Z_OK, Z_BUF_ERROR:
                if produced == output.count {
                    output += [UInt8](repeating: 0, count: min(output.count, size + 1 - output.count))
                }
            default:
                let detail = stream.pointee.msg.map { String(cString: $0) } ?? "error \(status)"
                throw GitError.malformedPack("the object at offset \(objectOffset) does not inflate: \(detail)")
            }
        }
    }
}
