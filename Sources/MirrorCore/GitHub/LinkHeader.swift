import Foundation

/// A parsed RFC 8288 `Link` header, looked up by relation name (GitHub's rel
/// order differs between endpoints, so position means nothing).
public struct LinkHeader: Sendable, Equatable {
    public private(set) var targets: [String: String] = [:]

    public var next: String? { targets["next"] }
    public var last: String? { targets["last"] }
    public var first: String? { targets["first"] }
    public var prev: String? { targets["prev"] }

    /// The `page` number a link names (its last `page` parameter), if any.
    public static func pageNumber(of link: String) -> Int? {
        URLComponents(string: link)?.queryItems?.last { $0.name == "page" }?.value.flatMap { Int($0) }
            .flatMap { (1...largestPageNumber).contains($0) ? $0 : nil }
    }

    /// The largest page number read from a link (`PageNumber.largest`): a
    /// server's larger (or zero or negative) number counts as none.
    public static let largestPageNumber = PageNumber.largest

    /// Parses `<url>; rel="next", <url>; rel="last"`. Returns `nil` when the
    /// header has content but no well-formed link at all.
    public init?(_ header: String) {
        var rest = Substring(header)
        while true {
            rest = rest.drop { $0 == " " || $0 == "\t" || $0 == "," }
            guard !rest.isEmpty else { break }
            guard rest.first == "<", let close = rest.firstIndex(of: ">") else { return nil }
            let url = String(rest[rest.index(after: rest.startIndex)..<close])
            rest = rest[rest.index(after: close)...]
            // Parameters run to the next comma that is outside quotes.
            var inQuotes = false
            let end =
                rest.firstIndex { character in
                    if character == "\"" { inQuotes.toggle() }
                    return character == "," && !inQuotes
                } ?? rest.endIndex
            for parameter in rest[..<end].split(separator: ";") {
                let parts = parameter.split(separator: "=", maxSplits: 1)
                guard parts.count == 2, parts[0].trimmed.lowercased() == "rel" else { continue }
                let value = parts[1].trimmed.trimmingCharacters(in: "\"")
                // rel may hold several space-separated relation types.
                for relation in value.split(separator: " ") where targets[relation.lowercased()] == nil {
                    targets[relation.lowercased()] = url
                }
            }
            rest = rest[end...]
        }
        if targets.isEmpty && !header.allSatisfy({ $0 == " " || $0 == "," }) { return nil }
    }
}

extension Substring {
    var trimmed: Substring {
        var slice = self
        while let c = slice.first, c == " " || c == "\t" { slice.removeFirst() }
        while let c = slice.last, c == " " || c == "\t" { slice.removeLast() }
        return slice
    }

    func trimmingCharacters(in character: Character) -> String {
        var slice = self
        while slice.first == character { slice.removeFirst() }
        while slice.last == character { slice.removeLast() }
        return String(slice)
    }
}
