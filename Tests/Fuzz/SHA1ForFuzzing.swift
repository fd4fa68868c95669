// The fuzz targets' GitHash core: the same `update`/`finalize` as
// Sources/GitHash/SHA1.swift, whose SHA-1 is BoringSSL's through swift-crypto, a
// package `swiftc` alone cannot build for the fuzzer. This is the Swift SHA-1
// the package used until e7057a2, which SHA1Tests checked against the FIPS
// vectors and `git hash-object`. The rest of the API is compiled from
// Sources/GitHash/SHA1+Conveniences.swift.

/// SHA-1 (FIPS 180-4), incrementally, for the fuzz targets. No heap allocation until the digest.
public struct SHA1: Sendable {
    private var state: (UInt32, UInt32, UInt32, UInt32, UInt32) = (
        0x6745_2301, 0xEFCD_AB89, 0x98BA_DCFE, 0x1032_5476, 0xC3D2_E1F0
    )
    /// The current, incomplete 64-byte block, inline.
    private var pending: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0, 0, 0)
    private var pendingCount = 0
    private var totalLength: UInt64 = 0

    public init() {}

    public mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard var base = bytes.baseAddress else { return }
        var remaining = bytes.count
        totalLength &+= UInt64(remaining)
        if pendingCount > 0 {
            let take = min(64 - pendingCount, remaining)
            let offset = pendingCount
            withUnsafeMutableBytes(of: &pending) { $0.baseAddress!.advanced(by: offset).copyMemory(from: base, byteCount: take) }
            pendingCount += take
            base += take
            remaining -= take
            guard pendingCount == 64 else { return }
            var block = pending
            withUnsafeBytes(of: &block) { compress($0.baseAddress!) }
            pendingCount = 0
        }
        while remaining >= 64 {
            compress(base)
            base += 64
            remaining -= 64
        }
        if remaining > 0 {
            withUnsafeMutableBytes(of: &pending) { $0.baseAddress!.copyMemory(from: base, byteCount: remaining) }
            pendingCount = remaining
        }
    }

    /// The 20-byte digest; the value itself is left as it was, so more input could still follow.
    public func finalize() -> [UInt8] {
        var copy = self
        let bitLength = totalLength &* 8
        // 0x80, zeros up to 56 bytes into a block, then the length in bits, big-endian.
        var padding: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0, 0, 0, 0)
        let zeros = (pendingCount + 1) % 64 <= 56 ? 56 - (pendingCount + 1) % 64 : 120 - (pendingCount + 1) % 64
        withUnsafeMutableBytes(of: &padding) { raw in
            raw[0] = 0x80
            for index in 0..<8 { raw[1 + zeros + index] = UInt8(truncatingIfNeeded: bitLength >> UInt64(56 - 8 * index)) }
            copy.update(UnsafeRawBufferPointer(rebasing: raw[0..<(1 + zeros + 8)]))
        }
        let words = [copy.state.0, copy.state.1, copy.state.2, copy.state.3, copy.state.4]
        return [UInt8](unsafeUninitializedCapacity: 20) { digest, count in
            for (index, word) in words.enumerated() {
                digest[4 * index] = UInt8(word >> 24)
                digest[4 * index + 1] = UInt8(truncatingIfNeeded: word >> 16)
                digest[4 * index + 2] = UInt8(truncatingIfNeeded: word >> 8)
                digest[4 * index + 3] = UInt8(truncatingIfNeeded: word)
            }
            count = 20
        }
    }

    @inline(__always)
    private static func rotate(_ value: UInt32, _ count: UInt32) -> UInt32 {
        (value << count) | (value >> (32 - count))
    }

    private mutating func compress(_ block: UnsafeRawPointer) {
        // The whole 80-word schedule first (on the stack), then the rounds.
        withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 80) { w in
            for i in 0..<16 {
                w[i] = UInt32(bigEndian: block.loadUnaligned(fromByteOffset: i * 4, as: UInt32.self))
            }
            for i in 16..<80 {
                w[i] = Self.rotate(w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16], 1)
            }
            var (a, b, c, d, e) = state
            for i in 0..<80 {
                let f: UInt32
                let k: UInt32
                if i < 20 {
                    f = (b & c) | (~b & d)
                    k = 0x5A82_7999
                } else if i < 40 {
                    f = b ^ c ^ d
                    k = 0x6ED9_EBA1
                } else if i < 60 {
                    f = (b & c) | (b & d) | (c & d)
                    k = 0x8F1B_BCDC
                } else {
                    f = b ^ c ^ d
                    k = 0xCA62_C1D6
                }
                let temp = Self.rotate(a, 5) &+ f &+ e &+ k &+ w[i]
                e = d
                d = c
                c = Self.rotate(b, 30)
                b = a
                a = temp
            }
            state = (state.0 &+ a, state.1 &+ b, state.2 &+ c, state.3 &+ d, state.4 &+ e)
        }
    }
}
