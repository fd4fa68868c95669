// zlib through the CZlib shim: inflating dataset files and gzip'ing response bodies.

import CZlib
import NIOCore

enum Gzip {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    static func isGzip(_ bytes: [UInt8]) -> Bool {
        bytes.count >= 2 && bytes[0] == 0x1F && bytes[1] == 0x8B
    }

    /// Inflates gzip (or zlib) data, including concatenated gzip members; more than `limit`
    /// bytes of output is refused.
    static func decompress(_ input: [UInt8], limit: Int = .max) throws -> [UInt8] {
        var stream = z_stream()
        guard czlib_inflate_init_gzip(&stream) == Z_OK else { throw Failure(description: "inflateInit failed") }
        defer { inflateEnd(&stream) }
        var output = [UInt8]()
        output.reserveCapacity(min(input.count * 6, limit))
        let chunkSize = 1 << 20
        var chunk = [UInt8](repeating: 0, count: chunkSize)
        try input.withUnsafeBufferPointer { inBuffer in
            stream.next_in = UnsafeMutablePointer(mutating: inBuffer.baseAddress)
            stream.avail_in = uInt(inBuffer.count)
            while true {
                let (status, produced) = chunk.withUnsafeMutableBufferPointer { outBuffer in
                    stream.next_out = outBuffer.baseAddress
                    stream.avail_out = uInt(chunkSize)
                    let status = inflate(&stream, Z_NO_FLUSH)
                    return (status, chunkSize - Int(stream.avail_out))
                }
                guard output.count + produced <= limit else {
                    throw Failure(description: "the data inflates to more than \(limit) bytes")
                }
                output += chunk[0..<produced]
                switch status {
                case Z_STREAM_END:
                    guard stream.avail_in > 0 else { return }
                    inflateReset(&stream)  // another gzip member follows
                case Z_OK:
                    if produced == 0 && stream.avail_in == 0 { throw Failure(description: "truncated gzip data") }
                case Z_BUF_ERROR where stream.avail_in == 0:
                    throw Failure(description: "truncated gzip data")
                default:
                    throw Failure(description: "corrupt gzip data (zlib status \(status))")
                }
            }
        }
        return output
    }

    /// Gzips a response body. Level 1: the point is realistic framing, not the best ratio.
    static func compress(_ input: ByteBuffer, level: Int32 = 1) -> ByteBuffer {
        var stream = z_stream()
        precondition(czlib_deflate_init_gzip(&stream, level) == Z_OK, "deflateInit2 failed")
        defer { deflateEnd(&stream) }
        let bound = Int(deflateBound(&stream, uLong(input.readableBytes))) + 32
        var output = ByteBuffer()
        output.reserveCapacity(bound)
        input.withUnsafeReadableBytes { inBytes in
            stream.next_in = UnsafeMutablePointer(mutating: inBytes.bindMemory(to: Bytef.self).baseAddress)
            stream.avail_in = uInt(inBytes.count)
            output.writeWithUnsafeMutableBytes(minimumWritableBytes: bound) { outBytes in
                stream.next_out = outBytes.bindMemory(to: Bytef.self).baseAddress
                stream.avail_out = uInt(outBytes.count)
                let status = deflate(&stream, Z_FINISH)
                precondition(status == Z_STREAM_END, "deflate into a deflateBound-sized buffer must finish")
                return outBytes.count - Int(stream.avail_out)
            }
        }
        return output
    }
}
