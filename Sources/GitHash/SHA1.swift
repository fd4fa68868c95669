/// SHA-1 (FIPS 180-4), incrementally: what git names its objects and checks
/// its packs with. Not for security decisions beyond git's own: it exists so
/// the mirror and github-sim can compute git object ids without a crypto
/// library in every binary.
public struct SHA1: Sendable {
    private var state: (UInt32, UInt32, UInt32, UInt32, UInt32) = (
        0x6745_2301, 0xEFCD_AB89, 0x98BA_DCFE, 0x1032_5476, 0xC3D2_E1F0
    )
    /// Bytes of the current, incomplete 64-byte block.
    private var pending: [UInt8] = []
    private var totalLength: UInt64 = 0

    public init() {
        pending.reserveCapacity(64)
    }

    public mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard var base = bytes.baseAddress else { return }
        var remaining = bytes.count
        totalLength &+= UInt64(remaining)
        if !pending.isEmpty {
            let take = min(64 - pending.count, remaining)
            pending.append(contentsOf: UnsafeRawBufferPointer(start: base, count: take))
            base += take
            remaining -= take
            guard pending.count == 64 else { return }
            pending.withUnsafeBytes { compress($0.baseAddress!) }
            pending.removeAll(keepingCapacity: true)
        }
        while remaining >= 64 {
            compress(base)
            base += 64
            remaining -= 64
        }
        if remaining > 0 {
            pending.append(contentsOf: UnsafeRawBufferPointer(start: base, count: remaining))
        }
    }

    public mutating func update<Bytes: Sequence>(_ bytes: Bytes) where Bytes.Element == UInt8 {
        if let done = bytes.withContiguousStorageIfAvailable({ update(UnsafeRawBufferPointer($0)) }) {
            return done
        }
        let copy = Array(bytes)
        copy.withUnsafeBytes { update($0) }
    }

    /// The 20-byte digest; the value itself is left as it was, so more input could still follow.
    public func finalize() -> [UInt8] {
        var copy = self
        let bitLength = totalLength &* 8
        var padding: [UInt8] = [0x80]
        let afterMarker = (pending.count + 1) % 64
        padding += [UInt8](repeating: 0, count: afterMarker <= 56 ? 56 - afterMarker : 120 - afterMarker)
        for shift in stride(from: 56, through: 0, by: -8) { padding.append(UInt8(truncatingIfNeeded: bitLength >> UInt64(shift))) }
        padding.withUnsafeBytes { copy.update($0) }
        var digest: [UInt8] = []
        digest.reserveCapacity(20)
        for word in [copy.state.0, copy.state.1, copy.state.2, copy.state.3, copy.state.4] {
            digest += [
                UInt8(word >> 24), UInt8(truncatingIfNeeded: word >> 16), UInt8(truncatingIfNeeded: word >> 8),
                UInt8(truncatingIfNeeded: word),
            ]
        }
        return digest
    }

    /// The digest of `bytes` alone.
    public static func hash<Bytes: Sequence>(_ bytes: Bytes) -> [UInt8] where Bytes.Element == UInt8 {
        var hasher = SHA1()
        hasher.update(bytes)
        return hasher.finalize()
    }

    private mutating func compress(_ block: UnsafeRawPointer) {
        var w = (
            UInt32(0), UInt32(0), UInt32(0), UInt32(0), UInt32(0), UInt32(0), UInt32(0), UInt32(0),
            UInt32(0), UInt32(0), UInt32(0), UInt32(0), UInt32(0), UInt32(0), UInt32(0), UInt32(0)
        )
        withUnsafeMutableBytes(of: &w) { raw in
            let words = raw.bindMemory(to: UInt32.self)
            for i in 0..<16 {
                words[i] = UInt32(bigEndian: block.loadUnaligned(fromByteOffset: i * 4, as: UInt32.self))
            }
            var (a, b, c, d, e) = state
            for i in 0..<80 {
                let value: UInt32
                if i < 16 {
                    value = words[i]
                } else {
                    let mixed = words[(i - 3) & 15] ^ words[(i - 8) & 15] ^ words[(i - 14) & 15] ^ words[i & 15]
                    value = (mixed << 1) | (mixed >> 31)
                    words[i & 15] = value
                }
                let f: UInt32, k: UInt32
                switch i {
                case 0..<20: (f, k) = ((b & c) | (~b & d), 0x5A82_7999)
                case 20..<40: (f, k) = (b ^ c ^ d, 0x6ED9_EBA1)
                case 40..<60: (f, k) = ((b & c) | (b & d) | (c & d), 0x8F1B_BCDC)
                default: (f, k) = (b ^ c ^ d, 0xCA62_C1D6)
                }
                let temp = ((a << 5) | (a >> 27)) &+ f &+ e &+ k &+ value
                e = d
                d = c
                c = (b << 30) | (b >> 2)
                b = a
                a = temp
            }
            state = (state.0 &+ a, state.1 &+ b, state.2 &+ c, state.3 &+ d, state.4 &+ e)
        }
    }
}

extension SHA1 {
    /// Lowercase hex, as git prints object ids.
    public static func hex(_ digest: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(digest.count * 2)
        for byte in digest {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 15)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
