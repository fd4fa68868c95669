// libFuzzer target for the pkt-line reader and side-band demultiplexing
// (Sources/MirrorCore/Git/PacketLine.swift, SideBand.swift), compiled together by
// Tests/Fuzz/run.sh. Any bytes, cut anywhere, must read as the same packets or be
// refused with an error, never crash or buffer without bound.

@_cdecl("LLVMFuzzerTestOneInput")
public func packetLineFuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    func read(chunk: Int) -> (packets: [PacketLine], failed: Bool) {
        var reader = PacketLineReader()
        var packets: [PacketLine] = []
        var index = 0
        while index < bytes.count {
            let end = min(bytes.count, index + chunk)
            reader.append(Array(bytes[index..<end]))
            index = end
            do {
                while let packet = try reader.next() {
                    if case .data(let payload) = packet {
                        precondition(payload.count <= PacketLine.maximumLength - 4, "a packet over the maximum")
                        _ = try? SideBand.packet(payload)
                    }
                    packets.append(packet)
                }
            } catch {
                return (packets, true)
            }
            // Never more than one packet plus one delivery is held.
            precondition(reader.pendingByteCount <= PacketLine.maximumLength + min(chunk, bytes.count), "unbounded buffering")
        }
        return (packets, false)
    }
    let whole = read(chunk: Int.max)
    // How the transport cuts the stream changes nothing.
    let split = read(chunk: 1 + (size % 7))
    precondition(whole.packets == split.packets && whole.failed == split.failed, "the reading depends on the delivery sizes")
    return 0
}
