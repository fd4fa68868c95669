import Foundation

/// How often a path changed: `commitsctl paths`, the hot spots of a codebase.
public struct PathActivity: Sendable, Equatable {
    /// The store's id for the path (this reader's).
    public var pathID: Int64
    public var path: [UInt8]
    /// Commits that are not merges whose change against their first parent names the path.
    public var commits: Int
    /// The newest of their committer dates (ISO 8601 UTC).
    public var lastCommitDate: String
    /// The people who authored the most of them (by author name, most first).
    public var topAuthors: [PathAuthor] = []

    public init(pathID: Int64, path: [UInt8], commits: Int, lastCommitDate: String) {
        self.pathID = pathID
        self.path = path
        self.commits = commits
        self.lastCommitDate = lastCommitDate
    }

    /// Most changed first, then the most recently changed, then by path bytes.
    public static func ranked(_ paths: [PathActivity]) -> [PathActivity] {
        paths.sorted { lhs, rhs in
            if lhs.commits != rhs.commits { return lhs.commits > rhs.commits }
            if lhs.lastCommitDate != rhs.lastCommitDate { return lhs.lastCommitDate > rhs.lastCommitDate }
            return lhs.path.lexicographicallyPrecedes(rhs.path)
        }
    }
}

/// Someone who changed a path, by author name, and how many of its commits they authored.
public struct PathAuthor: Sendable, Equatable {
    public var name: String
    public var commits: Int

    public init(name: String, commits: Int) {
        self.name = name
        self.commits = commits
    }
}

/// Which commits `commitsctl paths` counts.
public struct PathActivityScope: Sendable, Equatable {
    public var repository: RepositoryName?
    public var since: Date?
    public var until: Date?

    public init(repository: RepositoryName? = nil, since: Date? = nil, until: Date? = nil) {
        self.repository = repository
        self.since = since
        self.until = until
    }
}
