import Crypto

/// SHA-1 (FIPS 180-4), incrementally: what git names its objects and checks
/// its packs with. Not for security decisions beyond git's own. BoringSSL's
/// (swift-crypto's `Insecure.SHA1`, with the processor's SHA extensions where it
/// has them): the Swift implementation this replaced was a quarter of the time
/// a first sync over git spent reading its pack.
public struct SHA1: Sendable {
    private var hasher = Insecure.SHA1()

    public init() {}

    public mutating func update(_ bytes: UnsafeRawBufferPointer) {
        hasher.update(bufferPointer: bytes)
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
        Array(hasher.finalize())
    }

    /// The digest of `bytes` alone.
    public static func hash<Bytes: Sequence>(_ bytes: Bytes) -> [UInt8] where Bytes.Element == UInt8 {
        var hasher = SHA1()
        hasher.update(bytes)
        return hasher.finalize()
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
