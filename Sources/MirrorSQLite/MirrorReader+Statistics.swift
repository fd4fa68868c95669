import MirrorBookkeeping
import MirrorCore
import SQLite

// `authors` and `stats` on a SQLite store: the ranking rules are MirrorCore's.

extension MirrorReader {
    /// People by number of commits authored (most first, then co-authored,
    /// then by name), optionally of one repository; `top` keeps the first ones.
    public func authorStatistics(
        repository name: RepositoryName? = nil, top: Int? = nil,
        mailmap: Mailmap? = nil
    ) throws -> [AuthorStatistics] {
        var scope = ""
        var arguments: [any SQLiteBindable] = []
        if let name {
            guard let repository = try repository(named: name) else { return [] }
            scope = "\nWHERE EXISTS (SELECT 1 FROM repository_commits rc WHERE rc.repository_id = ? AND rc.commit_id = c.id)"
            arguments.append(repository.id)
        }
        // Per identity (authors row): authored commits, and the commits crediting it
        // (by id: a person credited under two identities on one commit counts once).
        var tallies: [Int64: AuthorTally] = [:]
        let authored = try db.prepare(
            name == nil && !(try BulkLoadIndexes.anyMissing(db))
                ? Self.authoredFromCounts
                : """
                SELECT c.author_id, count(*), min(c.committer_date), max(c.committer_date) FROM commits c\(scope)
                GROUP BY c.author_id
                """
        ).bind(arguments)
        while try authored.step() {
            let count = authored.int(1)
            AuthorTally.note(authored.int64(0), first: authored.string(2), last: authored.string(3), in: &tallies) {
                $0.commits += count
            }
        }
        let credited = try db.prepare(
            """
            SELECT ca.author_id, c.id, c.committer_date FROM commit_coauthors ca JOIN commits c ON c.id = ca.commit_id\(scope)
            """
        ).bind(arguments)
        while try credited.step() {
            let commit = credited.int64(1)
            AuthorTally.note(credited.int64(0), first: credited.string(2), last: credited.string(2), in: &tallies) {
                $0.coAuthored.insert(commit)
            }
        }
        return AuthorStatistics.ranked(try people(mailmap: mailmap), tallies: tallies, mailmap: mailmap, top: top)
    }

    /// Every author's commits from `author_commit_counts` (kept by triggers), and
    /// its first and last dates from the two ends of its range of the
    /// `commits_author_id` index: two seeks per author where grouping the
    /// commits reads every entry of that index (BENCHMARKS.md, "Measured
    /// reasons: authors"). Only while the index is there: a bulk load has it away.
    static let authoredFromCounts = """
        SELECT n.author_id, n.commits,
               (SELECT min(committer_date) FROM commits WHERE author_id = n.author_id),
               (SELECT max(committer_date) FROM commits WHERE author_id = n.author_id)
        FROM author_commit_counts n WHERE n.commits > 0
        """

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

    public func branchStatistics(repository name: RepositoryName? = nil) throws -> [BranchStatistics] {
        var sql = """
            SELECT r.full_name, b.name, b.state, count(c.id), coalesce(sum(c.parent_count > 1), 0), count(DISTINCT a.name),
                   min(c.committer_date), max(c.committer_date), s.last_success_at
            FROM repository_branches b
            JOIN repositories r ON r.id = b.repository_id
            LEFT JOIN sync_state s ON s.repository_id = b.repository_id AND s.branch = b.name
            LEFT JOIN branch_commits bc ON bc.branch_id = b.id
            LEFT JOIN commits c ON c.id = bc.commit_id
            LEFT JOIN authors a ON a.id = c.author_id
            """
        var arguments: [any SQLiteBindable] = []
        if let name {
            guard let repository = try repository(named: name) else { return [] }
            sql += "\nWHERE r.id = ?"
            arguments.append(repository.id)
        }
        sql += "\nGROUP BY b.id\nORDER BY r.full_name, b.name"
        return try db.prepare(sql).bind(arguments).map {
            BranchStatistics(
                repository: $0.string(0), branch: $0.string(1), state: $0.string(2), commits: $0.int(3), merges: $0.int(4),
                authors: $0.int(5), firstCommitDate: $0.optionalString(6), lastCommitDate: $0.optionalString(7),
                lastSyncAt: $0.optionalString(8))
        }
    }
}
