// JSON string output straight into a ByteBuffer. Non-ASCII passes through as UTF-8 (valid JSON).

import NIOCore

extension ByteBuffer {
    /// Writes `text` as a quoted JSON string.
    mutating func writeJSONString(_ text: String) {
        writeInteger(UInt8(ascii: "\""))
        if let done: Void = text.utf8.withContiguousStorageIfAvailable({ writeJSONEscaped($0) }) {
            _ = done
        } else {
            writeJSONEscaped(Array(text.utf8).withUnsafeBufferPointer { $0 })
        }
        writeInteger(UInt8(ascii: "\""))
    }

    /// Writes the bytes of a JSON string body, escaping quotes, backslashes and control characters.
    /// Runs of safe bytes are copied in one go; most strings have no escapes at all.
    private mutating func writeJSONEscaped(_ bytes: UnsafeBufferPointer<UInt8>) {
        var runStart = 0
        var i = 0
        while i < bytes.count {
            let c = bytes[i]
            if c >= 0x20 && c != UInt8(ascii: "\"") && c != UInt8(ascii: "\\") {
                i += 1
                continue
            }
            if i > runStart { writeBytes(UnsafeBufferPointer(rebasing: bytes[runStart..<i])) }
            switch c {
            case UInt8(ascii: "\""): writeStaticString("\\\"")
            case UInt8(ascii: "\\"): writeStaticString("\\\\")
            case 0x0A: writeStaticString("\\n")
            case 0x0D: writeStaticString("\\r")
            case 0x09: writeStaticString("\\t")
            case 0x08: writeStaticString("\\b")
            case 0x0C: writeStaticString("\\f")
            default:
                writeStaticString("\\u00")
                writeInteger(Hex.digits[Int(c >> 4)])
                writeInteger(Hex.digits[Int(c & 0xF)])
            }
            i += 1
            runStart = i
        }
        if bytes.count > runStart { writeBytes(UnsafeBufferPointer(rebasing: bytes[runStart..<bytes.count])) }
    }
}
