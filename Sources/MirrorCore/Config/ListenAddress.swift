import Foundation

/// `HOST:PORT` (or `[IPv6]:PORT`) for a listening socket, as `metrics_listen` spells it.
public struct ListenAddress: Sendable, Equatable, CustomStringConvertible {
    public var host: String
    /// 0 asks the kernel for a free port (tests).
    public var port: Int

    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}

extension ListenAddress {
    /// `HOST:PORT` or `[IPv6]:PORT`; `nil` for anything else. Declared here so that the
    /// address keeps its memberwise initialiser.
    public init?(parsing text: String) {
        let text = text.trimmingCharacters(in: .whitespaces)
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]),
            (0...65_535).contains(port)
        else { return nil }
        var host = String(text[..<colon])
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty, !host.contains(" ") else { return nil }
        self.init(host: host, port: port)
    }

    /// Whether one of the two would fail to bind once the other is bound: one
    /// port (not 0, which the kernel picks anew for each) on one host, or on a
    /// wildcard host (`0.0.0.0`, `::`) and any other.
    public func overlaps(_ other: ListenAddress) -> Bool {
        guard port == other.port, port != 0 else { return false }
        let wildcards: Set<String> = ["0.0.0.0", "::", "*"]
        return host.lowercased() == other.host.lowercased() || wildcards.contains(host) || wildcards.contains(other.host)
    }
}
