import Foundation

/// Filters for a commit query. Different filters narrow the result (AND);
/// repeated values of one filter widen it (OR), as in `git log`.
public struct CommitFilter: Sendable, Equatable {
    public enum Merges: String, Sendable, CaseIterable {
        /// Merges and ordinary commits alike.
        case include
        /// Only commits with at most one parent (`git log --no-merges`).
        case exclude
        /// Only commits with two or more parents (`git log --merges`).
        case only
    }

    /// Case-insensitive substrings of the author's "Name <email>", like `git log --author` (any one matches).
    public var authors: [String]
    /// Case-insensitive substrings of the committer's "Name <email>", like `git log --committer` (any one matches).
    public var committers: [String]
    /// Case-insensitive substrings of a `Co-authored-by:` trailer's "Name <email>" (any one matches).
    public var coAuthors: [String]
    /// Case-insensitive substrings of the message, like `git log -i -F --grep` (any one matches).
    public var greps: [String]
    /// The longest `greps` value, in Unicode scalars, either store searches for. PostgreSQL
    /// matches a needle as a regular expression of its case forms, which it refuses as too
    /// complex well before a needle of 100,000 scalars; one bound keeps both stores' answers alike.
    public static let longestGrep = 1000
    /// Every `greps` value must match (`git log --all-match`).
    public var allMatch: Bool
    /// Keep the commits whose message does *not* match the greps (`git log --invert-grep`).
    public var invertGrep: Bool
    public var merges: Merges
    /// Only commits whose committer date is at or after this instant.
    public var since: Date?
    /// Only commits whose committer date is at or before this instant.
    public var until: Date?
    /// Only commits of this repository (default: all).
    public var repository: RepositoryName?
    /// Only commits a mirrored branch whose name it matches reaches (`query --branch`:
    /// the union of those branches, each commit once); with `repository`, that
    /// repository's branches only. `nil`: every commit, whichever branch holds it.
    public var branches: BranchSelection?
    /// At most this many commits, the newest (nil = all).
    public var limit: Int?
    /// Also commits a confirmed history rewrite left off every mirrored branch
    /// (kept in the store, hidden by default).
    public var includeOffBranch: Bool
    /// When set, `authors` and `coAuthors` match any identity of a person it defines.
    public var mailmap: Mailmap?
    /// Only commits that entered the result after this change number (following a
    /// query: what arrived since). A commit enters when it joins a repository the
    /// filter selects, or a branch reaches it again, and it was not there before:
    /// the first change number among its memberships that count (`MirrorReader.latestChange()`).
    public var arrivedAfter: Int64?
    /// Only commits that were in the result by this change number (following a query:
    /// what was there at the start).
    public var arrivedThrough: Int64?
    /// Only these commits, by the ids of the store's reader that gave them
    /// (a path query's answer, `PathHistory`); nil: no such restriction.
    public var commitIDs: Set<Int64>?
    /// Whether each commit's `parents` and `repositories` are wanted. Not a
    /// filter: a caller that prints neither (`--format oneline`, `table`) says
    /// so, and a store may then leave them empty instead of reading two more
    /// tables for every commit (the larger part of a cold `query -n 50`'s reads).
    public var needsParentsAndRepositories = true

    public init(
        author: String? = nil, committer: String? = nil, grep: String? = nil, invertGrep: Bool = false,
        merges: Merges = .include, since: Date? = nil, until: Date? = nil,
        repository: RepositoryName? = nil, limit: Int? = nil, includeOffBranch: Bool = false
    ) {
        self.authors = author.map { [$0] } ?? []
        self.committers = committer.map { [$0] } ?? []
        self.coAuthors = []
        self.greps = grep.map { [$0] } ?? []
        self.allMatch = false
        self.invertGrep = invertGrep
        self.merges = merges
        self.since = since
        self.until = until
        self.repository = repository
        self.branches = nil
        self.limit = limit
        self.includeOffBranch = includeOffBranch
        self.mailmap = nil
        self.arrivedAfter = nil
        self.arrivedThrough = nil
    }
}
