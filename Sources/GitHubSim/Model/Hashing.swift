// Deterministic hashing used for generated data, ETags and "random" choices.
// Not cryptographic: it only has to be stable across runs and platforms.

enum Hashing {
    /// splitmix64's finaliser: a good 64-bit mixer.
    @inline(__always)
    static func mix(_ x: UInt64) -> UInt64 {
        var z = x &+ 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A value determined by (seed, index, salt); different salts give independent streams.
    @inline(__always)
    static func value(_ seed: UInt64, _ index: Int, _ salt: UInt64) -> UInt64 {
        mix(mix(seed ^ (salt &* 0xD6E8_FEB8_6659_FD93)) ^ UInt64(bitPattern: Int64(index)))
    }

    /// Uniform in [0, 1).
    @inline(__always)
    static func unit(_ seed: UInt64, _ index: Int, _ salt: UInt64) -> Double {
        Double(value(seed, index, salt) >> 11) * 0x1p-53
    }

    /// 64-bit FNV-1a over UTF-8, then mixed.
    static func string(_ text: String, lane: UInt64 = 0) -> UInt64 {
        var h: UInt64 = 0xCBF2_9CE4_8422_2325 ^ (lane &* 0x1000_0000_01B3)
        for byte in text.utf8 {
            h ^= UInt64(byte)
            h = h &* 0x1000_0000_01B3
        }
        return mix(h)
    }

    /// 64 lowercase hex characters derived from `text`, the length of GitHub's ETags.
    static func hex256(_ text: String) -> String {
        hex256(text, then: UnsafeRawBufferPointer(start: nil, count: 0))
    }

    /// `hex256(text + bytes)` without copying `bytes` into a string: all four lanes in one pass,
    /// so hashing a listing of tens of megabytes stays cheap.
    static func hex256(_ text: String, then bytes: UnsafeRawBufferPointer) -> String {
        let prime: UInt64 = 0x1000_0000_01B3
        let basis: UInt64 = 0xCBF2_9CE4_8422_2325
        var (a, b, c, d) = (basis, basis ^ prime, basis ^ (2 &* prime), basis ^ (3 &* prime))
        for byte in text.utf8 {
            let x = UInt64(byte)
            (a, b, c, d) = ((a ^ x) &* prime, (b ^ x) &* prime, (c ^ x) &* prime, (d ^ x) &* prime)
        }
        for byte in bytes {
            let x = UInt64(byte)
            (a, b, c, d) = ((a ^ x) &* prime, (b ^ x) &* prime, (c ^ x) &* prime, (d ^ x) &* prime)
        }
        return [a, b, c, d].map { Hex.string(mix($0), width: 16) }.joined()
    }
}

enum Hex {
    static let digits: [UInt8] = Array("0123456789abcdef".utf8)

    /// The low `width` hex digits of `value`, most significant first.
    static func string(_ value: UInt64, width: Int) -> String {
        String(unsafeUninitializedCapacity: width) { buffer in
            write(value, width: width, to: buffer.baseAddress!)
            return width
        }
    }

    @inline(__always)
    static func write(_ value: UInt64, width: Int, to pointer: UnsafeMutablePointer<UInt8>) {
        var v = value
        var i = width - 1
        while i >= 0 {
            pointer[i] = digits[Int(v & 0xF)]
            v >>= 4
            i -= 1
        }
    }

    /// Parses lowercase or uppercase hex of at most 16 digits.
    static func parse<S: Collection>(_ text: S) -> UInt64? where S.Element == UInt8 {
        guard !text.isEmpty, text.count <= 16 else { return nil }
        var v: UInt64 = 0
        for c in text {
            let d: UInt8
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): d = c - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): d = c - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): d = c - UInt8(ascii: "A") + 10
            default: return nil
            }
            v = v << 4 | UInt64(d)
        }
        return v
    }

    /// True for a full 40-character hex object id.
    static func isFullSHA(_ text: some StringProtocol) -> Bool {
        text.utf8.count == 40
            && text.utf8.allSatisfy { c in
                (c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9")) || (c >= UInt8(ascii: "a") && c <= UInt8(ascii: "f"))
                    || (c >= UInt8(ascii: "A") && c <= UInt8(ascii: "F"))
            }
    }
}
