// ETags and If-None-Match, compared weakly as GitHub does (one 304 was seen without the W/ prefix).

import NIOCore

enum ConditionalRequest {
    /// A weak ETag with 64 hex digits, derived from everything that shapes the representation.
    static func weakETag(_ identity: String) -> String {
        "W/\"\(Hashing.hex256(identity))\""
    }

    /// `weakETag(identity + body)`, reading the body where it lies.
    static func weakETag(_ identity: String, body: ByteBuffer) -> String {
        body.withUnsafeReadableBytes { "W/\"\(Hashing.hex256(identity, then: $0))\"" }
    }

    /// Whether `If-None-Match` names `etag` (or is `*`), ignoring `W/` on either side.
    static func matches(ifNoneMatch: String?, etag: String) -> Bool {
        guard let ifNoneMatch else { return false }
        let target = opaque(etag)
        for candidate in ifNoneMatch.split(separator: ",") {
            let trimmed = candidate.trimmingASCIISpaces
            if trimmed == "*" || opaque(trimmed) == target { return true }
        }
        return false
    }

    private static func opaque(_ tag: some StringProtocol) -> Substring {
        var s = Substring(tag)
        if s.hasPrefix("W/") || s.hasPrefix("w/") { s = s.dropFirst(2) }
        if s.count >= 2, s.first == "\"", s.last == "\"" { s = s.dropFirst().dropLast() }
        return s
    }
}

extension StringProtocol {
    var trimmingASCIISpaces: Substring {
        var s = Substring(self)
        while let c = s.first, c == " " || c == "\t" { s.removeFirst() }
        while let c = s.last, c == " " || c == "\t" { s.removeLast() }
        return s
    }
}
