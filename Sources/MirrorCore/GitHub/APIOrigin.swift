import Foundation

/// The scheme, host and port of the configured API: the only place the token
/// goes, the only place redirects and pagination links may lead.
///
/// Comparing origins (RFC 6454) rather than hosts is what stops an
/// `https://host` → `http://host` downgrade from carrying the token in clear text.
public struct APIOrigin: Sendable, Equatable, CustomStringConvertible {
    public let scheme: String
    public let host: String
    /// The explicit port, or the scheme's default (443 for https, 80 for http).
    public let port: Int

    /// `nil` unless `url` is an absolute `http`/`https` URL with a host and no
    /// user information (`user:password@` is never accepted, so never echoed).
    public init?(url: String) {
        guard let components = URLComponents(string: url),
            let scheme = components.scheme?.lowercased(), scheme == "http" || scheme == "https",
            let host = components.host?.lowercased(), !host.isEmpty,
            components.user == nil, components.password == nil
        else { return nil }
        self.scheme = scheme
        self.host = host
        self.port = components.port ?? (scheme == "https" ? 443 : 80)
    }

    /// Whether `url` is an absolute URL on exactly this origin.
    public func contains(_ url: String) -> Bool {
        APIOrigin(url: url) == self
    }

    /// Resolves a `Link` or `Location` target against the URL it came with
    /// (RFC 8288 §3.1, RFC 9110 §10.2.2) and returns it only when the result is
    /// on this origin; `nil` for anything else (another host, scheme or port,
    /// `file:`, `gopher:`, credentials, unparsable text).
    public func resolve(_ reference: String, against base: String) -> String? {
        guard let baseURL = URL(string: base),
            let resolved = URL(string: reference, relativeTo: baseURL)?.absoluteString,
            contains(resolved)
        else { return nil }
        return resolved
    }

    public var description: String {
        let defaultPort = scheme == "https" ? 443 : 80
        return port == defaultPort ? "\(scheme)://\(host)" : "\(scheme)://\(host):\(port)"
    }

    /// Whether `url` carries user information (`user:password@`), parsable or not:
    /// such an API URL is refused, and never echoed.
    public static func containsCredentials(_ url: String) -> Bool {
        if let components = URLComponents(string: url) {
            return components.user != nil || components.password != nil
        }
        // Unparsable: an @ before the path is as good as credentials.
        let authority = url.split(separator: "://", maxSplits: 1).last?.prefix { $0 != "/" && $0 != "?" && $0 != "#" } ?? ""
        return authority.contains("@")
    }

    /// A URL as it may be shown in an error or a log: user information
    /// removed, cut to a sensible length.
    public static func displayable(_ url: String, limit: Int = 200) -> String {
        var text = url
        if var components = URLComponents(string: url), components.user != nil || components.password != nil {
            components.user = nil
            components.password = nil
            text = components.string ?? "<a URL with credentials>"
        } else if URLComponents(string: url) == nil, url.contains("@") {
            text = "<an unparsable URL>"
        }
        let printable = String(text.unicodeScalars.map { $0.properties.generalCategory == .control ? "?" : Character($0) })
        return printable.count > limit ? String(printable.prefix(limit)) + "…" : printable
    }
}
