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

    /// The 20-byte digest; the value itself is left as it was, so more input could still follow.
    public func finalize() -> [UInt8] {
        Array(hasher.finalize())
    }
}
