import SQLite

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
    /// People by number of commits authored (most first, then co-authored,
    /// then by name), optionally of one repository; `top` keeps the first ones.
    public func authorStatistics(repository name: RepositoryName? = nil, top: Int? = nil,
                                 mailmap: Mailmap? = nil) throws -> [AuthorStatistics] {
        var scope = ""
        var arguments: [any SQLiteBindable] = []
        if let name {
            guard let repository = try repository(named: name) else { return [] }
            scope = "\nWHERE EXISTS (SELECT 1 FROM repository_commits rc WHERE rc.repository_id = ? AND rc.commit_id = c.id)"
            arguments.append(repository.id)
        }
        // Per identity (authors row): authored, then co-authored.
        typealias Counts = (commits: Int, coAuthored: Int, first: String, last: String)
        var counts: [Int64: Counts] = [:]
        for (sql, authored) in [
            ("SELECT c.author_id, count(*), min(c.committer_date), max(c.committer_date) FROM commits c", true),
            ("""
             SELECT ca.author_id, count(DISTINCT c.id), min(c.committer_date), max(c.committer_date)
             FROM commit_coauthors ca JOIN commits c ON c.id = ca.commit_id
             """, false),
        ] {
            let statement = try db.prepare(sql + scope + "\nGROUP BY 1").bind(arguments)
            while try statement.step() {
                let id = statement.int64(0), count = statement.int(1)
                var entry = counts[id] ?? (0, 0, statement.string(2), statement.string(3))
                if authored { entry.commits += count } else { entry.coAuthored += count }
                entry.first = min(entry.first, statement.string(2))
                entry.last = max(entry.last, statement.string(3))
                counts[id] = entry
            }
        }
        var result: [AuthorStatistics] = []
        for person in try people(mailmap: mailmap) {
            let members = person.identities.compactMap { identity in counts[identity.id].map { (identity, $0) } }
            guard !members.isEmpty else { continue }  // committers only
            let ranked = members.sorted { $0.1.commits != $1.1.commits ? $0.1.commits > $1.1.commits : $0.0.id < $1.0.id }
            var emails: [String] = []
            for (identity, _) in ranked where !emails.contains(identity.email) { emails.append(identity.email) }
            result.append(AuthorStatistics(
                name: mailmap == nil ? ranked[0].0.name : person.name, emails: emails,
                commits: members.reduce(0) { $0 + $1.1.commits }, coAuthored: members.reduce(0) { $0 + $1.1.coAuthored },
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
