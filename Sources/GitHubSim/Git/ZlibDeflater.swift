// One zlib deflate stream, reset for every object: a pack holds each object as its own zlib stream.

import CZlib

final class ZlibDeflater {
    /// Allocated once: zlib's state points back at its z_stream, so it must not move.
    private let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)

    init(level: Int32 = 1) {
        stream.initialize(to: z_stream())
        precondition(czlib_deflate_init_zlib(stream, level) == Z_OK, "deflateInit failed")
    }

    deinit {
        deflateEnd(stream)
        stream.deinitialize(count: 1)
        stream.deallocate()
    }

    /// `input` as one complete zlib stream.
    func compress(_ input: [UInt8]) -> [UInt8] {
        deflateReset(stream)
        let bound = Int(deflateBound(stream, uLong(input.count))) + 16
        return [UInt8](unsafeUninitializedCapacity: bound) { output, written in
            input.withUnsafeBufferPointer { input in
                stream.pointee.next_in = UnsafeMutablePointer(mutating: input.baseAddress)
                stream.pointee.avail_in = uInt(input.count)
                stream.pointee.next_out = output.baseAddress
                stream.pointee.avail_out = uInt(bound)
                let status = deflate(stream, Z_FINISH)
                precondition(status == Z_STREAM_END, "deflate into a deflateBound-sized buffer must finish")
                written = bound - Int(stream.pointee.avail_out)
            }
        }
    }
}

@available(*, unavailable)
extension ZlibDeflater: Sendable {}
