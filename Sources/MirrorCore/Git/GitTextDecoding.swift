import Foundation

/// Turns a commit's bytes into text as git's `encoding` header says they are
/// encoded; invalid bytes become U+FFFD, as `String(decoding:as:)` does for UTF-8.
enum GitTextDecoding {
    static func decode(_ bytes: UnsafeBufferPointer<UInt8>, encoding: String?) -> String {
        guard let encoding else { return String(decoding: bytes, as: UTF8.self) }
        switch encoding.lowercased() {
        case "utf-8", "utf8":
            return String(decoding: bytes, as: UTF8.self)
        case "iso-8859-1", "iso8859-1", "latin1", "latin-1", "l1", "iso_8859-1":
            // Every byte is the code point of the same value.
            var scalars = String.UnicodeScalarView()
            for byte in bytes { scalars.append(Unicode.Scalar(byte)) }
            return String(scalars)
        default:
            return transcode(bytes, from: encoding) ?? String(decoding: bytes, as: UTF8.self)
        }
    }

    /// Through iconv, as git itself re-encodes; `nil` when iconv does not know the name
    /// (git then shows the bytes unchanged, which is what UTF-8 decoding does).
    private static func transcode(_ bytes: UnsafeBufferPointer<UInt8>, from encoding: String) -> String? {
        guard encoding.utf8.count < 64, encoding.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else { return nil }
        let converter = iconv_open("UTF-8", encoding)
        guard converter != iconv_t(bitPattern: -1) else { return nil }
        defer { iconv_close(converter) }
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count * 2)
        var chunk = [CChar](repeating: 0, count: 4096)
        var inputPointer = UnsafeMutablePointer<CChar>(mutating: UnsafeRawPointer(bytes.baseAddress)?.assumingMemoryBound(to: CChar.self))
        var inputLeft = bytes.count
        while inputLeft > 0 {
            let (result, produced) = chunk.withUnsafeMutableBufferPointer { chunk -> (Int, Int) in
                var outputPointer: UnsafeMutablePointer<CChar>? = chunk.baseAddress
                var outputLeft = chunk.count
                let result = iconv(converter, &inputPointer, &inputLeft, &outputPointer, &outputLeft)
                return (result, chunk.count - outputLeft)
            }
            output += chunk[0..<produced].map { UInt8(bitPattern: $0) }
            if result == -1, errno != E2BIG {
                // EILSEQ or EINVAL: an invalid or incomplete sequence; replace one byte and go on.
                output += [0xEF, 0xBF, 0xBD]
                inputPointer = inputPointer.map { $0 + 1 }
                inputLeft -= 1
                iconv(converter, nil, nil, nil, nil)
            }
        }
        return String(decoding: output, as: UTF8.self)
    }
}
