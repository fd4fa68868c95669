import MirrorBookkeeping
import MirrorCore
import PostgreSQL

// `authors` and `stats` on a PostgreSQL store: the counts MirrorReader's
// StoreStatistics.swift reads, ranked by the same shared code.

extension PostgreSQLReader {
    public func authorStatistics(repository name: RepositoryName?, top: Int?, mailmap: Mailmap?) throws -> [AuthorStatistics] {
        try read {
            var scope = ""
            var parameters: [any PostgreSQLBindable] = []
            if let name {
                guard let repository = try repository(named: name) else { return [] }
                scope =
                    "\nWHERE EXISTS (SELECT 1 FROM repository_commits rc WHERE rc.repository_id = $1::bigint AND rc.commit_id = c.id)"
                parameters.append(repository.id)
            }
            // Per identity (authors row): authored commits, and the commits crediting it.
            var tallies: [Int64: AuthorTally] = [:]
            let authored = try connection.execute(
                """
                SELECT c.author_id, count(*), min(c.committer_date COLLATE "C"), max(c.committer_date COLLATE "C")
                FROM commits c\(scope) GROUP BY c.author_id
                """, parameters)
            for row in 0..<authored.count {
                let count = authored.int(row, 1) ?? 0
                AuthorTally.note(
                    authored.int64(row, 0) ?? 0, first: authored.string(row, 2) ?? "", last: authored.string(row, 3) ?? "",
                    in: &tallies
                ) { $0.commits += count }
            }
            try connection.forEachRow(
                """
                SELECT ca.author_id, c.id, c.committer_date FROM commit_coauthors ca JOIN commits c ON c.id = ca.commit_id\(scope)
                """, parameters
            ) { row in
                let commit = row.int64(0, 1) ?? 0
                let date = row.string(0, 2) ?? ""
                AuthorTally.note(row.int64(0, 0) ?? 0, first: date, last: date, in: &tallies) { $0.coAuthored.insert(commit) }
            }
            return AuthorStatistics.ranked(try people(mailmap: mailmap), tallies: tallies, mailmap: mailmap, top: top)
        }
    }

    public func repositoryStatistics(repository name: RepositoryName?) throws -> [RepositoryStatistics] {
        try read {
            var sql = """
                SELECT r.full_name, count(c.id), coalesce(sum(CASE WHEN c.parent_count > 1 THEN 1 ELSE 0 END), 0),
                       count(DISTINCT a.name), min(c.committer_date COLLATE "C"), max(c.committer_date COLLATE "C"),
                       (SELECT max(s.last_success_at COLLATE "C") FROM sync_state s WHERE s.repository_id = r.id)
                FROM repositories r
                LEFT JOIN repository_commits rc ON rc.repository_id = r.id
                LEFT JOIN commits c ON c.id = rc.commit_id
                LEFT JOIN authors a ON a.id = c.author_id
                """
            var parameters: [any PostgreSQLBindable] = []
            if let name {
                guard let repository = try repository(named: name) else { return [] }
                sql += "\nWHERE r.id = $1::bigint"
                parameters.append(repository.id)
            }
            // SQLite orders its NOCASE full_name by the ASCII-lowercased bytes.
            sql += "\nGROUP BY r.id\nORDER BY lower(r.full_name COLLATE \"C\")"
            let rows = try connection.execute(sql, parameters)
            return (0..<rows.count).map { row in
                RepositoryStatistics(
                    repository: rows.string(row, 0) ?? "", commits: rows.int(row, 1) ?? 0, merges: rows.int(row, 2) ?? 0,
                    authors: rows.int(row, 3) ?? 0, firstCommitDate: rows.string(row, 4), lastCommitDate: rows.string(row, 5),
                    lastSyncAt: rows.string(row, 6))
            }
        }
    }

    public func branchStatistics(repository name: RepositoryName?) throws -> [BranchStatistics] {
        try read {
            var sql = """
                SELECT r.full_name, b.name, b.state, count(c.id), coalesce(sum(CASE WHEN c.parent_count > 1 THEN 1 ELSE 0 END), 0),
                       count(DISTINCT a.name), min(c.committer_date COLLATE "C"), max(c.committer_date COLLATE "C"),
                       min(s.last_success_at)
                FROM repository_branches b
                JOIN repositories r ON r.id = b.repository_id
                LEFT JOIN sync_state s ON s.repository_id = b.repository_id AND s.branch = b.name
                LEFT JOIN branch_commits bc ON bc.branch_id = b.id
                LEFT JOIN commits c ON c.id = bc.commit_id
                LEFT JOIN authors a ON a.id = c.author_id
                """
            var parameters: [any PostgreSQLBindable] = []
            if let name {
                guard let repository = try repository(named: name) else { return [] }
                sql += "\nWHERE r.id = $1::bigint"
                parameters.append(repository.id)
            }
            // As SQLite orders them: the NOCASE full_name by its ASCII-lowercased bytes, then the branch's bytes.
            sql += "\nGROUP BY r.id, b.id\nORDER BY lower(r.full_name COLLATE \"C\"), b.name COLLATE \"C\""
            let rows = try connection.execute(sql, parameters)
            return (0..<rows.count).map { row in
                BranchStatistics(
                    repository: rows.string(row, 0) ?? "", branch: rows.string(row, 1) ?? "", state: rows.string(row, 2) ?? "active",
                    commits: rows.int(row, 3) ?? 0, merges: rows.int(row, 4) ?? 0, authors: rows.int(row, 5) ?? 0,
                    firstCommitDate: rows.string(row, 6), lastCommitDate: rows.string(row, 7), lastSyncAt: rows.string(row, 8))
            }
        }
    }
}
