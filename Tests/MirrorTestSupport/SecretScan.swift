import Foundation

/// The recognisable token the reliability tests authenticate with, and the
/// scans that prove it leaked nowhere: captured output, logs, store files, argv.
public enum SecretScan {
    public static let token = "ghp_SECRETSCAN_0123456789abcdef"

    /// Names of the `texts` (name → content) that contain the token; empty when none does.
    public static func leaks(in texts: [String: String]) -> [String] {
        texts.filter { $0.value.contains(token) }.map(\.key).sorted()
    }

    /// The store, its WAL and shared memory, byte for byte.
    public static func leaks(inStoreAt path: String) -> [String] {
        [path, path + "-wal", path + "-shm"].filter { file in
            guard let bytes = FileManager.default.contents(atPath: file) else { return false }
            return bytes.range(of: Data(token.utf8)) != nil
        }
    }

    /// A running process's argv as every user can read it (`/proc/PID/cmdline`).
    public static func commandLine(of pid: Int32) -> String? {
        guard let bytes = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") else { return nil }
        return String(decoding: bytes.map { $0 == 0 ? 0x20 : $0 }, as: UTF8.self)
    }
}
