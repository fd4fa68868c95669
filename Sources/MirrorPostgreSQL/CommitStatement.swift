import PostgreSQL

/// SQL conditions on `commits c` being put together, each value bound as the
/// next `$n` with its type named (so the server never guesses one).
struct CommitStatement {
    var conditions: [String] = []
    var parameters: [any PostgreSQLBindable] = []

    /// `$n::type` for `value`, the next parameter.
    mutating func bind(_ value: any PostgreSQLBindable, as type: String) -> String {
        parameters.append(value)
        return "$\(parameters.count)::\(type)"
    }

    /// The columns `PostgreSQLReader.commitSummary` reads, from `commits c`:
    /// parents in order, repositories by SQLite's NOCASE order of names.
    static let select = """
        SELECT c.id, c.sha, c.message, c.html_url,
               a.name, a.email, a.login, c.author_date,
               m.name, m.email, m.login, c.committer_date,
               (SELECT string_agg(p.parent_sha, ' ' ORDER BY p.position) FROM commit_parents p WHERE p.commit_id = c.id),
               (SELECT string_agg(r.full_name, ' ' ORDER BY lower(r.full_name COLLATE "C"))
                FROM repository_commits rc JOIN repositories r ON r.id = rc.repository_id WHERE rc.commit_id = c.id)
        FROM commits c
        JOIN authors a ON a.id = c.author_id
        JOIN authors m ON m.id = c.committer_id
        """

    /// The whole statement: newest committer date first, equal dates in mirrored
    /// order (row ids are given in page order).
    ///
    /// Committer dates are compared in the column's own collation, not "C": they
    /// are ISO 8601 UTC text of one fixed shape (`2024-03-05T10:00:00Z`), which
    /// every deterministic collation orders as its bytes (only digits differ, at
    /// the same places), and COLLATE "C" would keep PostgreSQL from walking the
    /// `commits_committer_date` index: `query -n 50` read the whole table.
    func sql(limit: Int?) -> (sql: String, parameters: [any PostgreSQLBindable]) {
        var statement = self
        var sql = Self.select
        if !conditions.isEmpty { sql += "\nWHERE " + conditions.joined(separator: "\n  AND ") }
        sql += "\nORDER BY c.committer_date DESC, c.id ASC"
        if let limit { sql += "\nLIMIT " + statement.bind(limit, as: "bigint") }
        return (sql, statement.parameters)
    }
}
