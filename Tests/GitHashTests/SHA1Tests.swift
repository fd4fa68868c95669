import Foundation
import GitHash
import MirrorTestSupport
import Testing

@Suite struct SHA1Tests {
    /// FIPS 180 / RFC 3174 vectors.
    @Test(arguments: [
        ("", "da39a3ee5e6b4b0d3255bfef95601890afd80709"),
        ("abc", "a9993e364706816aba3e25717850c26c9cd0d89d"),
        ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", "84983e441c3bd26ebaae4aa1f95129e5e54670f1"),
        ("The quick brown fox jumps over the lazy dog", "2fd4e1c67a2d28fced849ee1bb76e7391b93eb12"),
    ])
    func knownVectors(input: String, expected: String) {
        #expect(SHA1.hex(SHA1.hash(Array(input.utf8))) == expected)
    }

    @Test func aMillionAs() {
        #expect(SHA1.hex(SHA1.hash([UInt8](repeating: 0x61, count: 1_000_000))) == "34aa973cd4c4daa4f61eeb2bdbad27316534016f")
    }

    /// Any split of the input into updates gives the one-shot digest, across block boundaries.
    @Test func incrementalEqualsOneShot() {
        var random = SplitMix(seed: 12)
        for length in [0, 1, 55, 56, 63, 64, 65, 119, 120, 127, 128, 1000] {
            let bytes = (0..<length).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            let expected = SHA1.hash(bytes)
            var hasher = SHA1()
            var index = 0
            while index < length {
                let step = min(length - index, Int(random.next() % 70) + 1)
                hasher.update(bytes[index..<index + step])
                index += step
            }
            #expect(hasher.finalize() == expected, "length \(length)")
        }
    }

    /// The object names git computes: `git hash-object` over the same bytes.
    @Test func matchesGitHashObject() async throws {
        let directory = try TemporaryDirectory()
        var random = SplitMix(seed: 7)
        for length in [0, 10, 55, 56, 64, 300, 4097] {
            let bytes = (0..<length).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            let path = directory.path("blob-\(length)")
            #expect(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
            let git = try await runProgram("/usr/bin/git", ["hash-object", "--no-filters", path])
            #expect(git.status == 0, "\(git.stderr)")
            let ours = SHA1.hex(SHA1.hash(Array("blob \(length)\0".utf8) + bytes))
            #expect(ours == git.stdout.trimmingCharacters(in: .whitespacesAndNewlines), "length \(length)")
        }
    }
}
