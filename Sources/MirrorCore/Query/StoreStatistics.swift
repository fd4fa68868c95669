import SQLite

/// One author (by name, like `git shortlog`) and their commits. Names are
/// compared exactly, as SQLite compares them (no Unicode normalization).
public struct AuthorStatistics: Sendable, Equatable {
    public var name: String
    /// The emails used under this name, most commits first.
    public var emails: [String]
    public var commits: Int
    /// Committer dates (ISO 8601 UTC) of their oldest and newest commit.
    public var firstCommitDate: String
    public var lastCommitDate: String
}

/// What the store holds for one repository.
public struct RepositoryStatistics: Sendable, Equatable {
    public var repository: String
    public var commits: Int
    public var merges: Int
    /// Distinct author names.
    public var authors: Int
    /// Committer dates of the oldest and newest commit; nil when there are none.
    public var firstCommitDate: String?
    public var lastCommitDate: String?
    /// The last successful sync of any of its branches.
    public var lastSyncAt: String?
}

extension MirrorStore {
    /// Authors by number of commits (most first, then by name), optionally of
    /// one repository; `top` keeps the first ones.
    public func authorStatistics(repository name: RepositoryName? = nil, top: Int? = nil) throws -> [AuthorStatistics] {
        var sql = """
            SELECT a.name, a.email, count(*), min(c.committer_date), max(c.committer_date)
            FROM commits c JOIN authors a ON a.id = c.author_id
            """
        var arguments: [any SQLiteBindable] = []
        if let name {
            guard let repository = try repository(named: name) else { return [] }
            sql += "\nWHERE EXISTS (SELECT 1 FROM repository_commits rc WHERE rc.repository_id = ? AND rc.commit_id = c.id)"
            arguments.append(repository.id)
        }
        sql += "\nGROUP BY c.author_id"
        // Per (name, email) from SQL; folded by name here.
        // Keyed by the name's bytes: Swift's String equality would merge differently normalized names.
        var byName: [[UInt8]: (emails: [(String, Int)], stats: AuthorStatistics)] = [:]
        let statement = try db.prepare(sql).bind(arguments)
        while try statement.step() {
            let name = statement.string(0), email = statement.string(1), count = statement.int(2)
            let first = statement.string(3), last = statement.string(4)
            let key = Array(name.utf8)
            if var entry = byName[key] {
                entry.emails.append((email, count))
                entry.stats.commits += count
                entry.stats.firstCommitDate = min(entry.stats.firstCommitDate, first)
                entry.stats.lastCommitDate = max(entry.stats.lastCommitDate, last)
                byName[key] = entry
            } else {
                byName[key] = ([(email, count)], AuthorStatistics(
                    name: name, emails: [], commits: count, firstCommitDate: first, lastCommitDate: last))
            }
        }
        var result = byName.values.map { entry in
            var stats = entry.stats
            stats.emails = entry.emails.sorted { $0.1 != $1.1 ? $0.1 > $1.1 : $0.0 < $1.0 }.map(\.0)
            return stats
        }
        result.sort { $0.commits != $1.commits ? $0.commits > $1.commits : Array($0.name.utf8).lexicographicallyPrecedes(Array($1.name.utf8)) }
        if let top { result = Array(result.prefix(max(0, top))) }
        return result
    }

    /// Per repository (sorted by name), or only `repository`.
    public func repositoryStatistics(repository name: RepositoryName? = nil) throws -> [RepositoryStatistics] {
        var sql = """
            SELECT r.full_name, count(c.id), coalesce(sum(c.parent_count > 1), 0), count(DISTINCT a.name),
                   min(c.committer_date), max(c.committer_date),
                   (SELECT max(s.last_success_at) FROM sync_state s WHERE s.repository_id = r.id)
            FROM repositories r
            LEFT JOIN repository_commits rc ON rc.repository_id = r.id
            LEFT JOIN commits c ON c.id = rc.commit_id
            LEFT JOIN authors a ON a.id = c.author_id
            """
        var arguments: [any SQLiteBindable] = []
        if let name {
            guard let repository = try repository(named: name) else { return [] }
            sql += "\nWHERE r.id = ?"
            arguments.append(repository.id)
        }
        sql += "\nGROUP BY r.id\nORDER BY r.full_name"
        return try db.prepare(sql).bind(arguments).map {
            RepositoryStatistics(
                repository: $0.string(0), commits: $0.int(1), merges: $0.int(2), authors: $0.int(3),
                firstCommitDate: $0.optionalString(4), lastCommitDate: $0.optionalString(5),
                lastSyncAt: $0.optionalString(6))
        }
    }
}
