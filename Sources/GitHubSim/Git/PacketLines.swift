// pkt-line framing (gitprotocol-common): four hex digits of length (themselves included), then
// the payload; 0000 flush, 0001 delim, 0002 response-end.

import NIOCore

enum PacketLine: Equatable {
    case data([UInt8])
    case flush
    case delimiter
    case responseEnd

    /// The payload as text without its trailing newline, for command and argument lines.
    var text: String? {
        guard case .data(var bytes) = self else { return nil }
        if bytes.last == 0x0A { bytes.removeLast() }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The largest payload of one line.
    static let maximumPayload = 65516

    /// Every line of `bytes`, or nil when they are not whole pkt-lines.
    static func parse(_ bytes: some Collection<UInt8>) -> [PacketLine]? {
        let bytes = Array(bytes)
        var lines: [PacketLine] = []
        var position = 0
        while position < bytes.count {
            guard position + 4 <= bytes.count, let length = Hex.parse(bytes[position..<position + 4]) else { return nil }
            switch length {
            case 0: lines.append(.flush)
            case 1: lines.append(.delimiter)
            case 2: lines.append(.responseEnd)
            case 3: return nil
            default:
                guard position + Int(length) <= bytes.count else { return nil }
                lines.append(.data(Array(bytes[position + 4..<position + Int(length)])))
            }
            position += length < 4 ? 4 : Int(length)
        }
        return lines
    }
}

extension ByteBuffer {
    /// One data line; `text` should end with a newline, as git writes them.
    mutating func writePacketLine(_ text: String) {
        writePacketLine(bytes: Array(text.utf8))
    }

    mutating func writePacketLine(bytes: some Collection<UInt8>) {
        precondition(bytes.count <= PacketLine.maximumPayload, "a pkt-line payload is at most 65516 bytes")
        writeString(Hex.string(UInt64(bytes.count + 4), width: 4))
        writeBytes(bytes)
    }

    /// Side-band-64k: `band` (1 pack data, 2 progress, 3 fatal error) then the payload, in as
    /// many lines as it takes.
    mutating func writeSideBand(_ band: UInt8, _ payload: ArraySlice<UInt8>) {
        var rest = payload
        repeat {
            let piece = rest.prefix(PacketLine.maximumPayload - 1)
            rest = rest.dropFirst(piece.count)
            writeString(Hex.string(UInt64(piece.count + 5), width: 4))
            writeInteger(band)
            writeBytes(piece)
        } while !rest.isEmpty
    }

    mutating func writeFlush() { writeStaticString("0000") }
}
