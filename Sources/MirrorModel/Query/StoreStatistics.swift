/// One person (identities merged by name, GitHub login and an optional
/// mailmap) and their commits. Names are compared exactly, as SQLite compares
/// them (no Unicode normalization).
public struct AuthorStatistics: Sendable, Equatable {
    public var name: String
    /// The emails used by this person, most commits first.
    public var emails: [String]
    /// Commits they authored.
    public var commits: Int
    /// Commits crediting them in a `Co-authored-by:` trailer.
    public var coAuthored: Int
    /// Every "Name <email>" they appear as, most commits first.
    public var identities: [String]
    /// Committer dates (ISO 8601 UTC) of their oldest and newest commit (authored
    /// or co-authored).
    public var firstCommitDate: String
    public var lastCommitDate: String
}

/// One identity's (authors row's) share of `AuthorStatistics`, as a store counts it.
public struct AuthorTally: Sendable, Equatable {
    /// Commits it authored.
    public var commits = 0
    /// The commits crediting it, by row id (credited twice on one commit counts once).
    public var coAuthored: Set<Int64> = []
    public var first: String
    public var last: String

    /// Notes commits (authored or credited) committed between `first` and `last`.
    ///
    /// The entry is changed where it lies in `tallies`: a copy taken out and put
    /// back would share `coAuthored`'s storage with it, so each insertion would
    /// copy the whole set (docs/MEASURED-REASONS.md, "Measured reasons: authors").
    public static func note(
        _ id: Int64, first: String, last: String, in tallies: inout [Int64: AuthorTally], _ update: (inout AuthorTally) -> Void
    ) {
        tallies[id, default: AuthorTally(first: first, last: last)].note(first: first, last: last, update)
    }

    private mutating func note(first: String, last: String, _ update: (inout AuthorTally) -> Void) {
        update(&self)
        self.first = min(self.first, first)
        self.last = max(self.last, last)
    }
}

/// What `stats` counts of the commits a repository, or a branch, holds.
public struct CommitCounts: Sendable, Equatable {
    public var commits: Int
    public var merges: Int
    /// Distinct author names.
    public var authors: Int
    /// Committer dates of the oldest and newest commit; nil when there are none.
    public var firstCommitDate: String?
    public var lastCommitDate: String?
    /// The last successful sync: of any of a repository's branches, or of the branch.
    public var lastSyncAt: String?

    public init(
        commits: Int, merges: Int, authors: Int, firstCommitDate: String?, lastCommitDate: String?, lastSyncAt: String?
    ) {
        self.commits = commits
        self.merges = merges
        self.authors = authors
        self.firstCommitDate = firstCommitDate
        self.lastCommitDate = lastCommitDate
        self.lastSyncAt = lastSyncAt
    }
}

/// What the store holds for one repository.
public struct RepositoryStatistics: Sendable, Equatable {
    public var repository: String
    public var counts: CommitCounts

    public init(repository: String, counts: CommitCounts) {
        self.repository = repository
        self.counts = counts
    }
}

/// What the store holds for one mirrored branch (`stats --branches`): the commits
/// its recorded head reaches (`branch_commits`).
public struct BranchStatistics: Sendable, Equatable {
    public var repository: String
    public var branch: String
    /// `active`, or `gone` for a branch deleted on GitHub (its commits kept).
    public var state: String
    public var counts: CommitCounts

    public init(repository: String, branch: String, state: String, counts: CommitCounts) {
        self.repository = repository
        self.branch = branch
        self.state = state
        self.counts = counts
    }
}

extension AuthorStatistics {
    /// The people of `people` (identities in the store's order of first sight)
    /// who authored commits, with their tallies merged:
    /// most commits first, then most co-authored, then by name's bytes; `top`
    /// keeps the first ones. Every store counts per identity and ranks here.
    public static func ranked(
        _ people: [Person], tallies: [Int64: AuthorTally], mailmap: Mailmap?, top: Int?
    ) -> [AuthorStatistics] {
        var result: [AuthorStatistics] = []
        for person in people {
            let members = person.identities.compactMap { identity in tallies[identity.id].map { (identity, $0) } }
            guard !members.isEmpty else { continue }  // committers only
            // Equal counts keep the person's order of identities (by id in a SQLite store).
            let ranked = members.enumerated().sorted { lhs, rhs in
                lhs.element.1.commits != rhs.element.1.commits
                    ? lhs.element.1.commits > rhs.element.1.commits : lhs.offset < rhs.offset
            }.map(\.element)
            var emails: [String] = []
            for (identity, _) in ranked where !emails.contains(identity.email) { emails.append(identity.email) }
            result.append(
                AuthorStatistics(
                    name: mailmap == nil ? ranked[0].0.name : person.name, emails: emails,
                    commits: members.reduce(0) { $0 + $1.1.commits },
                    coAuthored: members.reduce(into: Set<Int64>()) { $0.formUnion($1.1.coAuthored) }.count,
                    identities: ranked.map { "\($0.0.name) <\($0.0.email)>" },
                    firstCommitDate: members.map(\.1.first).min()!, lastCommitDate: members.map(\.1.last).max()!))
        }
        result.sort {
            if $0.commits != $1.commits { return $0.commits > $1.commits }
            if $0.coAuthored != $1.coAuthored { return $0.coAuthored > $1.coAuthored }
            return Array($0.name.utf8).lexicographicallyPrecedes(Array($1.name.utf8))
        }
        if let top { result = Array(result.prefix(max(0, top))) }
        return result
    }
}
