/// `OWNER/NAME` as GitHub spells repositories. Validated on parse so a typo
/// fails with a clear message before any request is sent.
public struct RepositoryName: Sendable, Hashable, CustomStringConvertible, Codable {
    public let owner: String
    public let name: String

    public init(owner: String, name: String) {
        self.owner = owner
        self.name = name
    }

    /// Parses `owner/name`; `nil` unless both parts are non-empty and use only
    /// letters, digits, `-`, `_` and `.` (GitHub's rules), and neither is `.`/`..`
    /// (each becomes a URL path segment, where those mean "here" and "up").
    public init?(parsing text: String) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2 else { return nil }
        let allowed = { (c: Character) in c.isASCII && (c.isLetter || c.isNumber || c == "-" || c == "_" || c == ".") }
        let owner = String(parts[0]), name = String(parts[1].hasSuffix(".git") ? parts[1].dropLast(4) : parts[1])
        guard !owner.isEmpty, !name.isEmpty, owner.count <= 100, name.count <= 100,
            owner.allSatisfy(allowed), name.allSatisfy(allowed),
            owner != ".", owner != "..", name != ".", name != ".."
        else { return nil }
        self.init(owner: owner, name: name)
    }

    public var description: String { "\(owner)/\(name)" }

    /// `OWNER/NAME#<GitHub id>`: the stored name of a repository whose name
    /// GitHub gave to another one (deleted, then recreated). `#` is in no
    /// GitHub name, so it never collides, and it is never requested.
    public static func disambiguated(_ name: RepositoryName, githubID: Int) -> String {
        "\(name.owner)/\(name.name)#\(githubID)"
    }

    /// Parses a name as the store may hold it: a GitHub name, or one
    /// `disambiguated` (`OWNER/NAME#<id>`, kept with its `#` in `name`).
    public init?(parsingStored text: String) {
        let parts = text.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)
        guard let github = RepositoryName(parsing: String(parts[0])) else { return nil }
        guard parts.count == 2 else {
            self = github
            return
        }
        guard let id = Int(parts[1]), id > 0, String(id) == parts[1] else { return nil }
        self.init(owner: github.owner, name: "\(github.name)#\(id)")
    }

    /// GitHub gave this name (not a stored `disambiguated` one): only such a name goes into a request.
    public var isGitHubName: Bool { RepositoryName(parsing: description) == self }

    /// What a user should type, for error messages.
    public static let expectedForm = "OWNER/NAME, e.g. swiftlang/swift-evolution"
}
