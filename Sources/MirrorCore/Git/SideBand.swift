import Foundation

/// side-band-64k (gitprotocol-pack(5)): in a fetch response's `packfile`
/// section every packet's first byte names its stream.
enum SideBand {
    /// What one packet carries: pack bytes (band 1; none in a keep-alive) or progress (band 2).
    enum Packet: Equatable {
        case pack(ArraySlice<UInt8>)
        case progress
    }

    /// The packet's stream; band 3 (a fatal error) throws with the server's text.
    static func packet(_ payload: [UInt8]) throws -> Packet {
        guard let band = payload.first else {
            throw GitError.malformedPacketLine("an empty side-band packet")
        }
        switch band {
        case 1: return .pack(payload.dropFirst())
        case 2: return .progress
        case 3: throw GitError.remoteError(printable(payload.dropFirst()))
        default: throw GitError.malformedPacketLine("side-band \(band) does not exist (1 data, 2 progress, 3 error)")
        }
    }

    /// Server text fit for one log line: control characters replaced, at most 300 characters.
    static func printable(_ bytes: ArraySlice<UInt8>) -> String {
        let text = String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        let cleaned = String(text.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F ? "?" : Character($0) })
        return cleaned.count > 300 ? String(cleaned.prefix(300)) + "…" : cleaned
    }
}
