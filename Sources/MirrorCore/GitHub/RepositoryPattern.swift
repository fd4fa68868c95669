/// `OWNER/*` or a glob such as `OWNER/swift-*`: every repository of one owner
/// whose name matches. Only the name part may hold wildcards, and only `*`
/// (any run of characters, possibly empty); matching ignores case, as GitHub's
/// names do.
public struct RepositoryPattern: Sendable, Hashable, CustomStringConvertible {
    public let owner: String
    /// The name part, holding at least one `*`.
    public let namePattern: String

    /// Parses `owner/glob`; `nil` unless the owner is a valid owner name and the
    /// name part uses only GitHub's name characters and at least one `*`.
    public init?(parsing text: String) {
        guard Self.problem(with: text) == nil else { return nil }
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        owner = String(parts[0])
        namePattern = String(parts[1])
    }

    /// Why `text` is not a pattern (`nil` when it is one).
    public static func problem(with text: String) -> String? {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2 else { return "a pattern is OWNER/NAME with exactly one /" }
        let owner = parts[0], name = parts[1]
        let nameCharacter = { (c: Character) in c.isASCII && (c.isLetter || c.isNumber || c == "-" || c == "_" || c == ".") }
        if owner.contains("*") { return "only the name part may hold *, not the owner" }
        guard !owner.isEmpty, owner.count <= 100, owner.allSatisfy(nameCharacter), owner != ".", owner != ".." else {
            return "'\(owner.prefix(100))' is not an owner name"
        }
        guard name.contains("*") else { return "the name part holds no *" }
        guard name.count <= 100, name.allSatisfy({ nameCharacter($0) || $0 == "*" }) else {
            return "the name part may hold only letters, digits, -, _, . and * (no ?, [ ] or other wildcards)"
        }
        return nil
    }

    /// Whether `name` (a repository's name, without its owner) matches the name part.
    public func matches(name: String) -> Bool {
        StarGlob.matches(Array(namePattern.lowercased().utf8), Array(name.lowercased().utf8))
    }

    /// Whether `repository` belongs to the owner and matches the name part.
    public func matches(_ repository: RepositoryName) -> Bool {
        repository.owner.lowercased() == owner.lowercased() && matches(name: repository.name)
    }

    public var description: String { "\(owner)/\(namePattern)" }
}

/// What a user may name wherever a repository is accepted: one repository, or a pattern.
public enum RepositorySelector: Sendable, Hashable, CustomStringConvertible {
    case repository(RepositoryName)
    case pattern(RepositoryPattern)

    /// A name with `*` in it is a pattern; anything else must be `OWNER/NAME`.
    public init?(parsing text: String) {
        if text.contains("*") {
            guard let pattern = RepositoryPattern(parsing: text) else { return nil }
            self = .pattern(pattern)
        } else {
            guard let name = RepositoryName(parsing: text) else { return nil }
            self = .repository(name)
        }
    }

    public var description: String {
        switch self {
        case .repository(let name): return name.description
        case .pattern(let pattern): return pattern.description
        }
    }

    /// What a user should type, for error messages.
    public static let expectedForm = "OWNER/NAME, OWNER/* or a glob such as OWNER/swift-* (only * as a wildcard, in the name)"
}
