import GitHash

/// A git object id (SHA-1), held as three integers so that comparing and
/// hashing ids, which a diff does for every entry it meets, touches no heap.
public struct ObjectID: Hashable, Sendable, CustomStringConvertible {
    private let high: UInt64
    private let middle: UInt64
    private let low: UInt32

    /// The id git writes for "no object" (an added path's old side, a deleted path's new side).
    public static let zero = ObjectID(high: 0, middle: 0, low: 0)

    private init(high: UInt64, middle: UInt64, low: UInt32) {
        self.high = high
        self.middle = middle
        self.low = low
    }

    /// The id from its 20 raw bytes, as a tree entry carries it.
    public init(raw bytes: UnsafeBufferPointer<UInt8>) {
        precondition(bytes.count == 20, "an object id is 20 bytes")
        func load(_ start: Int, _ count: Int) -> UInt64 {
            var value: UInt64 = 0
            for index in start..<(start + count) { value = value << 8 | UInt64(bytes[index]) }
            return value
        }
        self.init(high: load(0, 8), middle: load(8, 8), low: UInt32(load(16, 4)))
    }

    /// The id from its 20 raw bytes; nil when there are not exactly 20.
    public init?(raw bytes: [UInt8]) {
        guard bytes.count == 20 else { return nil }
        self = bytes.withUnsafeBufferPointer { ObjectID(raw: $0) }
    }

    /// The id from 40 hex digits, as git prints it; nil for anything else.
    public init?<Text: StringProtocol>(hex text: Text) {
        let digits = Array(text.utf8)
        guard digits.count == 40 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(20)
        for pair in stride(from: 0, to: 40, by: 2) {
            guard let high = Self.nibble(digits[pair]), let low = Self.nibble(digits[pair + 1]) else { return nil }
            bytes.append(high << 4 | low)
        }
        self.init(raw: bytes)
    }

    /// The SHA-1 git names `bytes` by when they are an object of `type` (`tree`, `blob` …).
    public init(hashingObject bytes: [UInt8], type: String) {
        var hasher = SHA1()
        hasher.update(Array("\(type) \(bytes.count)\0".utf8))
        hasher.update(bytes)
        self.init(raw: hasher.finalize())!
    }

    public var raw: [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(20)
        for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: high >> UInt64(shift))) }
        for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: middle >> UInt64(shift))) }
        for shift in stride(from: 24, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: low >> UInt32(shift))) }
        return bytes
    }

    /// Lowercase hex, as git prints it.
    public var description: String { SHA1.hex(raw) }

    private static func nibble(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
