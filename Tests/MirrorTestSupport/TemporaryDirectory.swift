import Foundation

/// A fresh directory removed when released. The path is short on purpose: it
/// may hold a unix socket (sd_notify), whose path is limited to 108 bytes.
public final class TemporaryDirectory: @unchecked Sendable {
    public let url: URL

    public init() throws {
        url = URL(fileURLWithPath: "/tmp/cm-tests-\(UUID().uuidString.prefix(12))")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    public func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    /// Writes `text` to `name` inside the directory and returns its path.
    @discardableResult
    public func write(_ name: String, _ text: String) throws -> String {
        let path = self.path(name)
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    deinit { try? FileManager.default.removeItem(at: url) }
}
