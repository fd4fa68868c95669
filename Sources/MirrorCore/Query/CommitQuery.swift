import SQLite

/// Filters for `commitsctl query`; every field narrows the result (AND).
public struct CommitFilter: Sendable, Equatable {
    /// Case-insensitive substring of the author's "Name <email>", like `git log --author`.
    public var author: String?
    /// Only commits of this repository (default: all).
    public var repository: RepositoryName?
    /// At most this many commits (nil = all).
    public var limit: Int?

    public init(author: String? = nil, repository: RepositoryName? = nil, limit: Int? = nil) {
        self.author = author
        self.repository = repository
        self.limit = limit
    }
}

/// One row of a query result.
public struct CommitSummary: Sendable, Equatable {
    public var sha: String
    public var authorName: String
    public var authorEmail: String
    public var authorDate: String
    public var committerDate: String
    public var message: String
    public var parentCount: Int

    /// The message's first line.
    public var subject: String {
        message.firstIndex(of: "\n").map { String(message[..<$0]) } ?? message
    }
}

extension MirrorStore {
    /// Commits matching `filter`, newest committer date first (ties by newest row).
    /// Every user-supplied value is a bound parameter.
    public func commits(matching filter: CommitFilter) throws -> [CommitSummary] {
        var conditions: [String] = []
        var arguments: [any SQLiteBindable] = []
        if let author = filter.author {
            // The authors table is small: scanning it, then using commits_author_id,
            // never scans the commits table.
            conditions.append("c.author_id IN (SELECT id FROM authors WHERE instr(search_text, ?) > 0)")
            arguments.append(AuthorSearch.needle(author))
        }
        if let name = filter.repository {
            guard let repository = try repository(named: name) else { return [] }
            conditions.append("EXISTS (SELECT 1 FROM repository_commits rc WHERE rc.commit_id = c.id AND rc.repository_id = ?)")
            arguments.append(repository.id)
        }
        var sql = """
            SELECT c.sha, a.name, a.email, c.author_date, c.committer_date, c.message, c.parent_count
            FROM commits c JOIN authors a ON a.id = c.author_id
            """
        if !conditions.isEmpty { sql += "\nWHERE " + conditions.joined(separator: " AND ") }
        sql += "\nORDER BY c.committer_date DESC, c.id DESC"
        if let limit = filter.limit {
            sql += "\nLIMIT ?"
            arguments.append(limit)
        }
        return try db.prepare(sql).bind(arguments).map {
            CommitSummary(sha: $0.string(0), authorName: $0.string(1), authorEmail: $0.string(2),
                          authorDate: $0.string(3), committerDate: $0.string(4), message: $0.string(5),
                          parentCount: $0.int(6))
        }
    }
}
