import Foundation

/// One revision as git spells it (gitrevisions(7)): a name (a tag, a branch,
/// a full or abbreviated sha, `HEAD`) followed by `^N` and `~N` steps.
public struct Revision: Sendable, Equatable, CustomStringConvertible {
    /// A step from a commit to one of its ancestors.
    public enum Step: Sendable, Equatable {
        /// `^N`: its Nth parent (`^` is `^1`, `^0` the commit itself).
        case parent(Int)
        /// `~N`: its first parent's first parent…, N times (`~` is `~1`).
        case ancestor(Int)
    }

    /// The name the steps start from; `HEAD` for `HEAD`, `@` or an empty side of `..`.
    public var name: String
    public var steps: [Step]
    /// As it was written, for messages.
    public var description: String

    public init(name: String, steps: [Step] = [], description: String? = nil) {
        self.name = name
        self.steps = steps
        self.description = description ?? name
    }

    /// The revision `text` spells; `text` empty is `HEAD` (a side of `A..` or `..B`).
    public static func parse(_ text: Substring) throws(RevisionError) -> Revision {
        guard !text.isEmpty else { return Revision(name: "HEAD") }
        var rest = text[...]
        var steps: [Step] = []
        // Steps are read from the end: a name never ends in `^`, `~` or a digit after one.
        while let mark = rest.lastIndex(where: { $0 == "^" || $0 == "~" }) {
            let digits = rest[rest.index(after: mark)...]
            if digits == "{}" || digits == "{commit}" {
                rest = rest[..<mark]
                continue
            }
            guard digits.allSatisfy({ $0.isASCII && $0.isNumber }) else { break }
            guard digits.count <= 6, let count = digits.isEmpty ? 1 : Int(digits) else {
                throw .malformed(String(text), reason: "the count after ^ or ~ is too large")
            }
            steps.insert(rest[mark] == "^" ? .parent(count) : .ancestor(count), at: 0)
            rest = rest[..<mark]
        }
        guard !rest.isEmpty else { throw .malformed(String(text), reason: "it names no revision before ^ or ~") }
        guard isPlausibleName(rest) else {
            throw .malformed(String(text), reason: "'\(rest)' is not a tag, branch or sha name")
        }
        let name = rest == "@" ? "HEAD" : String(rest)
        return Revision(name: name, steps: steps, description: String(text))
    }

    /// Whether `name` could be a ref name or sha: what gitrevisions' other forms
    /// (`:/text`, `@{…}`, `<rev>:<path>`) use is refused rather than guessed at.
    public static func isPlausibleName(_ name: Substring) -> Bool {
        !name.hasPrefix("-") && !name.contains("..") && !name.contains("@{")
            && !name.unicodeScalars.contains { $0.value < 0x21 || $0.value == 0x7F || ":?*[\\".unicodeScalars.contains($0) }
    }
}

/// The commits a query's revision arguments select, as git's revision walk
/// combines them: everything the included revisions reach, less everything the
/// excluded ones reach; `A...B` is what exactly one of A and B reaches.
public struct RevisionRange: Sendable, Equatable {
    public enum Term: Sendable, Equatable {
        case include(Revision)
        case exclude(Revision)
        /// `A...B`.
        case symmetric(Revision, Revision)
    }

    public var terms: [Term]

    public init(terms: [Term]) {
        self.terms = terms
    }

    /// The range `arguments` spell (`A..B`, `A...B`, `^A`, `B~3`, … each one argument).
    public static func parse(_ arguments: [String]) throws(RevisionError) -> RevisionRange {
        var terms: [Term] = []
        for argument in arguments {
            let text = argument[...]
            if let dots = text.firstRange(of: "...") {
                terms.append(.symmetric(try .parse(text[..<dots.lowerBound]), try .parse(text[dots.upperBound...])))
            } else if let dots = text.firstRange(of: "..") {
                terms.append(.exclude(try .parse(text[..<dots.lowerBound])))
                terms.append(.include(try .parse(text[dots.upperBound...])))
            } else if text.hasPrefix("^") && text.count > 1 {
                terms.append(.exclude(try .parse(text.dropFirst())))
            } else {
                terms.append(.include(try .parse(text)))
            }
        }
        return RevisionRange(terms: terms)
    }

    /// Whether a positional argument is written as a revision rather than a path:
    /// a range, an exclusion, or a name with `^`/`~` steps.
    public static func isWrittenAsRevision(_ argument: String) -> Bool {
        argument.contains("..") || argument.hasPrefix("^")
            || argument.range(of: #"[\^~][0-9]*$"#, options: .regularExpression) != nil
    }

    /// Every revision named, in order.
    public var revisions: [Revision] {
        terms.flatMap { term -> [Revision] in
            switch term {
            case .include(let revision), .exclude(let revision): [revision]
            case .symmetric(let left, let right): [left, right]
            }
        }
    }
}

/// Why revision arguments name no commits of a repository.
public enum RevisionError: Error, Equatable, CustomStringConvertible {
    case malformed(String, reason: String)
    /// No tag, branch or stored sha of any repository searched is called that.
    case unknown(String)
    /// A prefix several commits share: the candidates, oldest sha first.
    case ambiguous(String, candidates: [String])
    /// A tag whose commit is not stored (or that does not end at a commit).
    case notMirrored(String)
    /// `^N` past the commit's parents, or `~N` past its root.
    case noSuchAncestor(String)
    /// An argument before `--` that names no revision and matches no stored path.
    case neitherRevisionNorPath(String)

    public var description: String {
        switch self {
        case .malformed(let text, let reason): "'\(text)' is not a revision: \(reason)"
        case .unknown(let name): "unknown revision '\(name)': no tag, branch or stored commit has that name"
        case .ambiguous(let prefix, let candidates):
            "revision '\(prefix)' is ambiguous: commits \(candidates.joined(separator: ", ")) start with it"
        case .notMirrored(let name): "revision '\(name)' names a commit the mirror does not hold"
        case .noSuchAncestor(let text): "revision '\(text)' goes past the commit's parents"
        case .neitherRevisionNorPath(let text):
            "'\(text)' is neither a revision (no tag, branch or stored commit has that name) nor a stored path"
        }
    }
}
