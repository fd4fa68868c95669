/// One pkt-line of git's wire protocol (gitprotocol-common(5), gitprotocol-v2(5)):
/// four hex digits of length (the digits included), then the payload; the
/// lengths 0000, 0001 and 0002 are the special packets below.
enum PacketLine: Equatable, Sendable {
    case data([UInt8])
    /// `0000`: the end of a message or a section.
    case flush
    /// `0001`: separates a command's capabilities from its arguments, and response sections.
    case delimiter
    /// `0002`: the end of a stateless response.
    case responseEnd

    /// The largest pkt-line git sends or accepts: 65520 bytes, the 4 length digits included.
    static let maximumLength = 65520

    /// The payload as text without its trailing LF, for command and capability lines.
    var text: String? {
        guard case .data(let bytes) = self else { return nil }
        let line = bytes.last == 0x0A ? bytes.dropLast() : bytes[...]
        return String(decoding: line, as: UTF8.self)
    }
}

/// Cuts a byte stream into pkt-lines as it arrives: feed it whatever the
/// transport delivered, then take packets until it needs more bytes. Buffers at
/// most one packet plus one delivery, since a length over the maximum is refused.
struct PacketLineReader {
    private var buffer: [UInt8] = []
    private var start = 0

    /// Bytes received that do not yet form a whole packet.
    var pendingByteCount: Int { buffer.count - start }

    mutating func append(_ bytes: UnsafeRawBufferPointer) {
        if start > 0, start >= buffer.count / 2 {
            buffer.removeSubrange(0..<start)
            start = 0
        }
        buffer.append(contentsOf: bytes)
    }

    mutating func append(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { append($0) }
    }

    /// The next whole packet, or `nil` when more bytes are needed.
    mutating func next() throws -> PacketLine? {
        guard buffer.count - start >= 4 else { return nil }
        var length = 0
        for offset in 0..<4 {
            guard let digit = Self.hexValue(buffer[start + offset]) else {
                let shown = String(decoding: buffer[start..<start + 4].map { (0x20..<0x7F).contains($0) ? $0 : 0x3F }, as: UTF8.self)
                throw GitError.malformedPacketLine("the length \"\(shown)\" is not 4 hex digits")
            }
            length = length << 4 | digit
        }
        switch length {
        case 0: start += 4; return .flush
        case 1: start += 4; return .delimiter
        case 2: start += 4; return .responseEnd
        case 3: throw GitError.malformedPacketLine("the length 0003 is reserved")
        case let length where length > PacketLine.maximumLength:
            throw GitError.malformedPacketLine("the length \(length) is over git's maximum \(PacketLine.maximumLength)")
        default: break
        }
        guard buffer.count - start >= length else { return nil }
        let payload = Array(buffer[start + 4..<start + length])
        start += length
        return .data(payload)
    }

    private static func hexValue(_ c: UInt8) -> Int? {
        switch c {
        case 0x30...0x39: Int(c - 0x30)
        case 0x61...0x66: Int(c - 0x61 + 10)
        case 0x41...0x46: Int(c - 0x41 + 10)
        default: nil
        }
    }
}

/// Builds a request body of pkt-lines.
struct PacketLineWriter {
    private(set) var bytes: [UInt8] = []

    /// Writes `line` plus LF as one data packet.
    mutating func write(_ line: String) {
        let payload = Array(line.utf8) + [0x0A]
        let length = payload.count + 4
        precondition(length <= PacketLine.maximumLength, "a request line over the pkt-line maximum")
        let digits = Array("0123456789abcdef".utf8)
        for shift in [12, 8, 4, 0] { bytes.append(digits[(length >> shift) & 15]) }
        bytes += payload
    }

    mutating func writeFlush() { bytes += Array("0000".utf8) }
    mutating func writeDelimiter() { bytes += Array("0001".utf8) }
}
