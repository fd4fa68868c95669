import Foundation

/// Which branches of a repository a `branches:` entry (or `--branch`) selects:
/// a branch name, or a glob where `*` stands for any run of characters, `/`
/// included, as `git branch --list PATTERN` matches (so `*` alone is every
/// branch and `release/*` also takes `release/5.10/hotfix`). Case-sensitive,
/// as git's branch names are. `?` and `[` cannot appear in a branch name, so
/// `*` is the only wildcard.
public struct BranchPattern: Sendable, Hashable, CustomStringConvertible {
    public let text: String

    /// Every branch.
    public static let every = BranchPattern(checked: "*")

    /// `nil` unless `text` is a valid branch name once each `*` stands for a character.
    public init?(parsing text: String) {
        guard Self.problem(with: text) == nil else { return nil }
        self.text = text
    }

    private init(checked text: String) { self.text = text }

    /// What a user should type, for error messages.
    public static let expectedForm = "branch names or globs such as main or \"release/*\" (\"*\" for every branch)"

    /// Why `text` is neither a branch name nor a glob of branch names (`nil` when it is one).
    public static func problem(with text: String) -> String? {
        if text == "*" { return nil }
        // A `*` stands for at least one character here, so `release/*` checks as `release/x`.
        return BranchName.problem(with: text.replacingOccurrences(of: "*", with: "x"))
    }

    /// Whether this selects more than the one branch its text names.
    public var isGlob: Bool { text.contains("*") }

    /// Whether `branch` is selected.
    public func matches(_ branch: String) -> Bool {
        StarGlob.matches(Array(text.utf8), Array(branch.utf8))
    }

    public var description: String { text }
}

/// The branches one repository entry mirrors: its `branches:` patterns, in
/// the order written, none twice.
public struct BranchSelection: Sendable, Hashable, CustomStringConvertible {
    public let patterns: [BranchPattern]

    public init(_ patterns: [BranchPattern]) { self.patterns = patterns }

    /// Every branch (`"*"`, `--all-branches`).
    public static let every = BranchSelection([.every])

    /// Whether discovering the repository's branches is needed (a glob), or the names are all there is.
    public var needsDiscovery: Bool { patterns.contains(where: \.isGlob) }

    /// The exact names it lists (its patterns without a `*`), in order.
    public var names: [String] { patterns.filter { !$0.isGlob }.map(\.text) }

    public func matches(_ branch: String) -> Bool { patterns.contains { $0.matches(branch) } }

    /// The branches of `branches` it selects, in the order given.
    public func selected(from branches: [String]) -> [String] { branches.filter(matches) }

    public var description: String { patterns.map(\.text).joined(separator: ", ") }
}
