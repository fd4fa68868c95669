import Foundation

/// The recognisable token the reliability tests authenticate with, and the
/// scans that prove it leaked nowhere: captured output, logs, store files, argv.
/// A scan looks for the token in every encoding a server could echo it in:
/// itself (any case), percent-encoded, and base64 or base64url at any alignment
/// (which covers the Basic `x-access-token:<token>` git hosts are sent).
public enum SecretScan {
    public static let token = "ghp_SECRETSCAN_0123456789abcdef"

    /// The byte strings that betray the token, however it was encoded.
    public static let encodings: [String] = {
        var forms = [token, token.lowercased(), token.uppercased()]
        if let escaped = token.addingPercentEncoding(withAllowedCharacters: .alphanumerics) { forms.append(escaped) }
        // Whatever precedes the token, its base64 holds one of three runs of
        // characters that depend on the token's bytes alone: drop the characters
        // that mix in the bytes before (`k` of them modulo 3) and after it.
        for k in 0..<3 {
            let encoded = Data(Array(repeating: 0x41, count: k) + Array(token.utf8)).base64EncodedString()
            let unpadded = encoded.prefix { $0 != "=" }
            let stable = String(unpadded.dropFirst((k * 8 + 5) / 6).dropLast(2))
            forms.append(stable)
            forms.append(stable.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_"))
        }
        return Array(Set(forms))
    }()

    /// What a git host is sent as `Authorization` for the token.
    public static let basicCredential = "Basic " + Data("x-access-token:\(token)".utf8).base64EncodedString()

    /// Names of the `texts` (name → content) that contain the token in any encoding; empty when none does.
    public static func leaks(in texts: [String: String]) -> [String] {
        texts.filter { text in
            var value = text.value
            return value.withUTF8 { holdsAnEncoding(UnsafeRawBufferPointer($0)) }
        }.map(\.key).sorted()
    }

    /// The store, its WAL and shared memory, byte for byte.
    public static func leaks(inStoreAt path: String) -> [String] {
        [path, path + "-wal", path + "-shm"].filter { file in
            guard let bytes = FileManager.default.contents(atPath: file) else { return false }
            return bytes.withUnsafeBytes { holdsAnEncoding($0) }
        }
    }

    private static let encodingBytes = encodings.map { Array($0.utf8) }

    /// A `memchr`/`memcmp` search for each encoding: scans run in test bodies on
    /// the cooperative pool, over megabytes of trace logs and store files, and
    /// must stay fast (a `String.contains` per encoding took seconds).
    private static func holdsAnEncoding(_ haystack: UnsafeRawBufferPointer) -> Bool {
        encodingBytes.contains { find($0, in: haystack) }
    }

    private static func find(_ needle: [UInt8], in haystack: UnsafeRawBufferPointer) -> Bool {
        guard let first = needle.first, let base = haystack.baseAddress, haystack.count >= needle.count else { return false }
        let lastStart = haystack.count - needle.count
        return needle.withUnsafeBytes { pattern in
            var offset = 0
            while offset <= lastStart {
                guard let hit = memchr(base + offset, Int32(first), lastStart - offset + 1) else { return false }
                if memcmp(hit, pattern.baseAddress!, needle.count) == 0 { return true }
                offset = base.distance(to: UnsafeRawPointer(hit)) + 1
            }
            return false
        }
    }

    /// A running process's argv as every user can read it (`/proc/PID/cmdline`).
    public static func commandLine(of pid: Int32) -> String? {
        guard let bytes = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") else { return nil }
        return String(decoding: bytes.map { $0 == 0 ? 0x20 : $0 }, as: UTF8.self)
    }
}
