/// A git object name: the 20 bytes of a SHA-1, compact enough to keep one per
/// object of a large pack in memory (a `String` would cost several times more),
/// and cheap to compare and hash, which a tree diff does for every entry it meets.
public struct ObjectID: Hashable, Sendable, CustomStringConvertible {
    private let high: UInt64
    private let middle: UInt64
    private let low: UInt32

    /// The id git writes for "no object" (an added path's old side, a deleted path's new side).
    public static let zero = ObjectID(digest: [UInt8](repeating: 0, count: 20))

    /// From the first 20 bytes of `bytes` (a digest, a REF_DELTA base, a tree entry's id).
    public init(bytes: UnsafeRawBufferPointer) {
        precondition(bytes.count >= 20)
        high = UInt64(bigEndian: bytes.loadUnaligned(fromByteOffset: 0, as: UInt64.self))
        middle = UInt64(bigEndian: bytes.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
        low = UInt32(bigEndian: bytes.loadUnaligned(fromByteOffset: 16, as: UInt32.self))
    }

    public init(digest: [UInt8]) {
        self = digest.withUnsafeBytes { ObjectID(bytes: $0) }
    }

    /// From 40 hex digits (either case); `nil` for anything else.
    public init?<Text: Collection>(hex: Text) where Text.Element == UInt8 {
        guard hex.count == 40 else { return nil }
        var digest = [UInt8](repeating: 0, count: 20)
        var index = hex.startIndex
        for i in 0..<20 {
            guard let high = Self.nibble(hex[index]), let low = Self.nibble(hex[hex.index(after: index)]) else { return nil }
            digest[i] = high << 4 | low
            index = hex.index(index, offsetBy: 2)
        }
        self.init(digest: digest)
    }

    public init?<Text: StringProtocol>(hex: Text) {
        self.init(hex: Array(hex.utf8))
    }

    /// The 20 bytes, as git writes them in packs and trees.
    public var digest: [UInt8] {
        var bytes = [UInt8](repeating: 0, count: 20)
        bytes.withUnsafeMutableBytes { bytes in
            bytes.storeBytes(of: high.bigEndian, toByteOffset: 0, as: UInt64.self)
            bytes.storeBytes(of: middle.bigEndian, toByteOffset: 8, as: UInt64.self)
            bytes.storeBytes(of: low.bigEndian, toByteOffset: 16, as: UInt32.self)
        }
        return bytes
    }

    /// 40 lowercase hex digits, as git and GitHub print object names.
    public var hex: String {
        var text = [UInt8](repeating: 0, count: 40)
        let digits: StaticString = "0123456789abcdef"
        digits.withUTF8Buffer { digits in
            for (index, word) in [(0, high), (16, middle)] {
                for i in 0..<16 { text[index + i] = digits[Int(word >> UInt64(60 - 4 * i) & 15)] }
            }
            for i in 0..<8 { text[32 + i] = digits[Int(low >> UInt32(28 - 4 * i) & 15)] }
        }
        return String(decoding: text, as: UTF8.self)
    }

    public var description: String { hex }

    private static func nibble(_ c: UInt8) -> UInt8? {
        switch c {
        case 0x30...0x39: c - 0x30
        case 0x61...0x66: c - 0x61 + 10
        case 0x41...0x46: c - 0x41 + 10
        default: nil
        }
    }
}

extension ObjectID {
    /// The SHA-1 git names `bytes` by when they are an object of `type` (`tree`, `blob` …).
    public init(hashingObject bytes: [UInt8], type: String) {
        var hasher = SHA1()
        hasher.update(Array("\(type) \(bytes.count)\0".utf8))
        hasher.update(bytes)
        self.init(digest: hasher.finalize())
    }
}
