import Foundation

/// The paths `git log -- ARG...` limits a history to, read as git reads its pathspecs at
/// the repository root and matched as git matches them, without a repository or a backend.
///
/// An item matches a path it equals, a path it names a leading directory of (`Sources` or
/// `Sources/` matches `Sources/a.swift`, `Sour` does not), or, when it holds a wildcard
/// (`*`, `?`, `[`, `\`), a path the whole of which its glob matches; git's globs without
/// `:(glob)` let `*` and `?` match `/` too. `:(exclude)`, `:!` and `:^` exclude; `:(top)`
/// and `:/` change nothing at the root; `:(literal)` turns the wildcards off.
public struct Pathspec: Sendable, Equatable {
    /// One pathspec element, its magic already read.
    public struct Item: Sendable, Equatable {
        /// The bytes matched, as git keeps them: normalized (`./a/../b/` is `b/`), magic removed.
        public let pattern: [UInt8]
        public let isExclusion: Bool
        public let isLiteral: Bool
        /// How many leading bytes hold no wildcard: the part a path must start with.
        let literalLength: Int
        /// The rest of `pattern` as a glob; nil when there is none or git could never match it.
        let glob: Glob?

        public init(pattern: [UInt8], isExclusion: Bool = false, isLiteral: Bool = false) {
            self.pattern = pattern
            self.isExclusion = isExclusion
            self.isLiteral = isLiteral
            literalLength = isLiteral ? pattern.count : (pattern.firstIndex(where: Glob.isSpecial) ?? pattern.count)
            glob = literalLength < pattern.count ? Glob(pattern[literalLength...]) : nil
        }

        /// git's `match_pathspec_item` for a file: equal, a leading directory, or the glob.
        public func matches(_ path: [UInt8]) -> Bool {
            if pattern.isEmpty { return true }
            if pattern.count <= path.count, path.starts(with: pattern) {
                if pattern.count == path.count || pattern[pattern.count - 1] == slash || path[pattern.count] == slash {
                    return true
                }
            }
            guard let glob, path.count >= literalLength, path.starts(with: pattern[..<literalLength]) else { return false }
            return glob.matches(path[literalLength...])
        }
    }

    public let items: [Item]

    /// Parses the pathspec arguments as git's `git log -- ARG...` takes them (at the repository root).
    /// Throws `PathspecError` for an argument git refuses (empty, outside the repository, bad magic)
    /// and for the magic this matcher leaves out (`glob`, `icase`, `attr`, `prefix`) or an absolute path.
    public init(_ arguments: [String]) throws {
        items = try arguments.map(Self.item(parsing:))
    }

    /// Items already parsed, for patterns held as bytes rather than as command-line strings.
    public init(items: [Item]) {
        self.items = items
    }

    /// Whether a file path (raw bytes, `/`-separated, no leading or trailing `/`) is matched:
    /// by some include item (any path when there is none) and by no exclude item.
    public func matches(_ path: [UInt8]) -> Bool {
        var included = true
        for item in items where !item.isExclusion {
            if item.matches(path) { return !excludes(path) }
            included = false
        }
        return included && !excludes(path)
    }

    /// For each include item, the bytes every path it matches starts with (those before its first
    /// wildcard), for narrowing a sorted search; `[[]]` when there is no include item, as all paths are.
    public var literalPrefixes: [[UInt8]] {
        let prefixes = items.filter { !$0.isExclusion }.map { Array($0.pattern[..<$0.literalLength]) }
        return prefixes.isEmpty ? [[]] : prefixes
    }

    public var hasExclusions: Bool { items.contains { $0.isExclusion } }

    private func excludes(_ path: [UInt8]) -> Bool {
        items.contains { $0.isExclusion && $0.matches(path) }
    }
}

/// A pathspec argument git would refuse, or one using what this matcher leaves out.
public struct PathspecError: Error, CustomStringConvertible, Equatable {
    public enum Kind: Sendable, Equatable {
        /// An empty argument (git: "empty string is not a valid pathspec").
        case empty
        /// `..` climbing above the repository root.
        case outsideRepository
        /// An absolute path, which git reads against a work tree this matcher has none of.
        case absolutePath
        /// `:(` with no `)`.
        case unclosedMagic
        /// A magic word or mnemonic git does not know.
        case unknownMagic(String)
        /// Magic git knows but this matcher does not implement.
        case unsupportedMagic(String)
    }

    public var argument: String
    public var kind: Kind

    public init(argument: String, kind: Kind) {
        self.argument = argument
        self.kind = kind
    }

    public var description: String {
        let quoted = String(reflecting: argument)
        switch kind {
        case .empty:
            return "pathspec \(quoted): an empty string is not a valid pathspec; use '.' to match all paths"
        case .outsideRepository:
            return "pathspec \(quoted) is outside the repository; give paths from the repository root"
        case .absolutePath:
            return "pathspec \(quoted) is an absolute path; give paths from the repository root"
        case .unclosedMagic:
            return "pathspec \(quoted): missing ')' at the end of the pathspec magic"
        case .unknownMagic(let magic):
            return "pathspec \(quoted): unknown pathspec magic '\(magic)'; use exclude, literal or top (or './:name' for a file ':name')"
        case .unsupportedMagic(let magic):
            return "pathspec \(quoted): pathspec magic '\(magic)' is not supported; use exclude, literal or top"
        }
    }
}

private let slash = UInt8(ascii: "/")

extension Pathspec {
    /// The magic a `:`-prefixed argument sets.
    private struct Magic {
        var exclude = false
        var literal = false
        var top = false
    }

    static func item(parsing argument: String) throws -> Item {
        let bytes = Array(argument.utf8)
        guard !bytes.isEmpty else { throw PathspecError(argument: argument, kind: .empty) }
        var magic = Magic()
        var start = 0
        if bytes[0] == UInt8(ascii: ":") {
            let isLong = bytes.count > 1 && bytes[1] == UInt8(ascii: "(")
            start = try isLong ? longMagic(bytes, argument, &magic) : shortMagic(bytes, argument, &magic)
        }
        var pattern = Array(bytes[start...])
        // git normalizes only paths it reads against the current directory, which `top` skips.
        if !magic.top {
            if pattern.first == slash { throw PathspecError(argument: argument, kind: .absolutePath) }
            guard let normalized = normalized(pattern) else { throw PathspecError(argument: argument, kind: .outsideRepository) }
            pattern = normalized
        }
        return Item(pattern: pattern, isExclusion: magic.exclude, isLiteral: magic.literal)
    }

    /// `:(word,word)pattern`: returns the index after `)`.
    private static func longMagic(_ bytes: [UInt8], _ argument: String, _ magic: inout Magic) throws -> Int {
        guard let close = bytes[2...].firstIndex(of: UInt8(ascii: ")")) else {
            throw PathspecError(argument: argument, kind: .unclosedMagic)
        }
        for word in bytes[2..<close].split(separator: UInt8(ascii: ","), omittingEmptySubsequences: true) {
            let name = String(decoding: word, as: UTF8.self)
            switch name {
            case "exclude": magic.exclude = true
            case "literal": magic.literal = true
            case "top": magic.top = true
            case "glob", "icase", "attr", "prefix":
                throw PathspecError(argument: argument, kind: .unsupportedMagic(name))
            default:
                if name.hasPrefix("attr:") || name.hasPrefix("prefix:") {
                    throw PathspecError(argument: argument, kind: .unsupportedMagic(String(name.prefix { $0 != ":" })))
                }
                throw PathspecError(argument: argument, kind: .unknownMagic(name))
            }
        }
        return close + 1
    }

    /// `:!pattern`, `:^pattern`, `:/pattern`, optionally ending the mnemonics with `:`.
    private static func shortMagic(_ bytes: [UInt8], _ argument: String, _ magic: inout Magic) throws -> Int {
        var index = 1
        while index < bytes.count, bytes[index] != UInt8(ascii: ":") {
            switch bytes[index] {
            case UInt8(ascii: "!"), UInt8(ascii: "^"): magic.exclude = true
            case UInt8(ascii: "/"): magic.top = true
            case let byte where shortMagicCharacters.contains(byte):
                throw PathspecError(argument: argument, kind: .unknownMagic(String(UnicodeScalar(byte))))
            default: return index
            }
            index += 1
        }
        return index < bytes.count ? index + 1 : index
    }

    /// The punctuation git reads as a mnemonic after `:` (its ctype's GIT_PATHSPEC_MAGIC), of which it knows only `!` and `/`.
    private static let shortMagicCharacters = Set("!\"#%&',-/:;<=>@_`~".utf8)

    /// git's `normalize_path_copy`: drops `.` and empty components, resolves `..`, keeps a final
    /// `/` (which a trailing `.` or `..` leaves too); nil when `..` climbs above the root.
    static func normalized(_ path: [UInt8]) -> [UInt8]? {
        var components: [ArraySlice<UInt8>] = []
        var endsWithSlash = false
        for component in path.split(separator: slash, omittingEmptySubsequences: true) {
            endsWithSlash = path.last == slash
            if component.elementsEqual(".".utf8) {
                endsWithSlash = true
            } else if component.elementsEqual("..".utf8) {
                guard components.popLast() != nil else { return nil }
                endsWithSlash = true
            } else {
                components.append(component)
            }
        }
        guard !components.isEmpty else { return [] }
        return Array(components.joined(separator: [slash])) + (endsWithSlash ? [slash] : [])
    }
}

/// git's `wildmatch` without `WM_PATHNAME`: `*` matches any bytes (`/` too), `?` any one byte,
/// `[...]` one byte of a class (ranges, `!` or `^` negation, `[:alpha:]` and the like), `\` quotes.
struct Glob: Sendable, Equatable {
    enum Token: Sendable, Equatable {
        case byte(UInt8)
        case any
        case star
        case set(ByteSet)
    }

    let tokens: [Token]

    static func isSpecial(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "*") || byte == UInt8(ascii: "?") || byte == UInt8(ascii: "[") || byte == UInt8(ascii: "\\")
    }

    /// Nil for a pattern wildmatch can never match: a trailing `\`, or an unclosed or malformed class.
    init?(_ pattern: ArraySlice<UInt8>) {
        var tokens: [Token] = []
        var index = pattern.startIndex
        while index < pattern.endIndex {
            let byte = pattern[index]
            index += 1
            switch byte {
            case UInt8(ascii: "*"):
                if tokens.last != .star { tokens.append(.star) }
            case UInt8(ascii: "?"):
                tokens.append(.any)
            case UInt8(ascii: "\\"):
                guard index < pattern.endIndex else { return nil }
                tokens.append(.byte(pattern[index]))
                index += 1
            case UInt8(ascii: "["):
                guard let set = ByteSet.parse(pattern, at: &index) else { return nil }
                tokens.append(.set(set))
            default:
                tokens.append(.byte(byte))
            }
        }
        self.tokens = tokens
    }

    /// The classic iterative matcher: on a mismatch, only the last `*` takes one more byte,
    /// which suffices because every `*` matches every byte; at most pattern × path steps.
    func matches(_ text: ArraySlice<UInt8>) -> Bool {
        var token = 0
        var position = text.startIndex
        var star: (token: Int, position: Int)?
        while position < text.endIndex {
            if token < tokens.count {
                if tokens[token] == .star {
                    star = (token, position)
                    token += 1
                    continue
                }
                if Self.token(tokens[token], matches: text[position]) {
                    token += 1
                    position += 1
                    continue
                }
            }
            guard let last = star else { return false }
            star = (last.token, last.position + 1)
            token = last.token + 1
            position = last.position + 1
        }
        while token < tokens.count, tokens[token] == .star { token += 1 }
        return token == tokens.count
    }

    private static func token(_ token: Token, matches byte: UInt8) -> Bool {
        switch token {
        case .byte(let expected): return byte == expected
        case .any: return true
        case .star: return false
        case .set(let set): return set.contains(byte)
        }
    }
}

/// The bytes one `[...]` class matches, negation applied.
struct ByteSet: Sendable, Equatable {
    private var words: [UInt64] = [0, 0, 0, 0]

    func contains(_ byte: UInt8) -> Bool { words[Int(byte >> 6)] & (1 << UInt64(byte & 63)) != 0 }

    private mutating func insert(_ byte: UInt8) { words[Int(byte >> 6)] |= 1 << UInt64(byte & 63) }

    private mutating func insert(where predicate: (UInt8) -> Bool) {
        for byte in UInt8.min...UInt8.max where predicate(byte) { insert(byte) }
    }

    /// Reads a class as wildmatch's `[` case does, `index` just after the `[`; leaves `index` after the `]`.
    static func parse(_ pattern: ArraySlice<UInt8>, at index: inout Int) -> ByteSet? {
        func next() -> UInt8? {
            guard index < pattern.endIndex else { return nil }
            defer { index += 1 }
            return pattern[index]
        }
        var set = ByteSet()
        guard var byte = next() else { return nil }
        let negated = byte == UInt8(ascii: "!") || byte == UInt8(ascii: "^")
        if negated {
            guard let first = next() else { return nil }
            byte = first
        }
        var previous: UInt8?
        repeat {
            var member: UInt8? = byte
            if byte == UInt8(ascii: "\\") {
                guard let quoted = next() else { return nil }
                member = quoted
                set.insert(quoted)
            } else if byte == UInt8(ascii: "-"), let low = previous, index < pattern.endIndex, pattern[index] != UInt8(ascii: "]") {
                guard var high = next() else { return nil }
                if high == UInt8(ascii: "\\") {
                    guard let quoted = next() else { return nil }
                    high = quoted
                }
                if low <= high { set.insert { $0 >= low && $0 <= high } }
                member = nil
            } else if byte == UInt8(ascii: "["), index < pattern.endIndex, pattern[index] == UInt8(ascii: ":") {
                guard let named = namedClass(pattern, at: &index, into: &set) else { return nil }
                member = named ? nil : byte
                if !named { set.insert(byte) }
            } else {
                set.insert(byte)
            }
            previous = member
            guard let following = next() else { return nil }
            byte = following
        } while byte != UInt8(ascii: "]")
        if negated { set.words = set.words.map { ~$0 } }
        return set
    }

    /// After `[` with `:` next: true having added a `[:name:]` class, false when no `:]` closes
    /// it (the `[` is then a plain member, `index` left on the `:`), nil for an unknown name.
    private static func namedClass(_ pattern: ArraySlice<UInt8>, at index: inout Int, into set: inout ByteSet) -> Bool? {
        let start = index + 1
        guard let close = pattern[start...].firstIndex(of: UInt8(ascii: "]")) else { return nil }
        guard close - start >= 1, pattern[close - 1] == UInt8(ascii: ":") else { return false }
        guard let predicate = namedClasses[String(decoding: pattern[start..<close - 1], as: UTF8.self)] else { return nil }
        set.insert(where: predicate)
        index = close + 1
        return true
    }

    /// git's own ASCII-only ctype, which no locale changes.
    private static let namedClasses: [String: @Sendable (UInt8) -> Bool] = [
        "alnum": { isAlpha($0) || isDigit($0) },
        "alpha": isAlpha,
        "blank": { $0 == 0x20 || $0 == 0x09 },
        "cntrl": { $0 < 0x20 || $0 == 0x7F },
        "digit": isDigit,
        "graph": { $0 > 0x20 && $0 < 0x7F },
        "lower": { $0 >= 0x61 && $0 <= 0x7A },
        "print": { $0 >= 0x20 && $0 < 0x7F },
        "punct": { $0 > 0x20 && $0 < 0x7F && !isAlpha($0) && !isDigit($0) },
        "space": { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D },
        "upper": { $0 >= 0x41 && $0 <= 0x5A },
        "xdigit": { isDigit($0) || (($0 | 0x20) >= 0x61 && ($0 | 0x20) <= 0x66) },
    ]

    private static func isAlpha(_ byte: UInt8) -> Bool { (byte | 0x20) >= 0x61 && (byte | 0x20) <= 0x7A }
    private static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }
}
