// What every SHA-1 of GitHash offers on top of `update(_: UnsafeRawBufferPointer)`
// and `finalize()`: kept apart from SHA1.swift so the fuzz targets, which build
// their own SHA-1 core (Tests/Fuzz/SHA1ForFuzzing.swift), compile this same file.

extension SHA1 {
    public mutating func update<Bytes: Sequence>(_ bytes: Bytes) where Bytes.Element == UInt8 {
        if let done = bytes.withContiguousStorageIfAvailable({ update(UnsafeRawBufferPointer($0)) }) {
            return done
        }
        let copy = Array(bytes)
        copy.withUnsafeBytes { update($0) }
    }

    /// The digest of `bytes` alone.
    public static func hash<Bytes: Sequence>(_ bytes: Bytes) -> [UInt8] where Bytes.Element == UInt8 {
        var hasher = SHA1()
        hasher.update(bytes)
        return hasher.finalize()
    }

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
