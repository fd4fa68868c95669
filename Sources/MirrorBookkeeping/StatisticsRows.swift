import MirrorCore

// `authors` and `stats` counted once for every store, in each dialect's SQL;
// the ranking rules are MirrorCore's.

public enum StatisticsRows {
    /// Per repository (by its current name), how many of its commits have their changed paths stored.
    public static func commitsWithPaths(in session: some SQLSession) throws -> [String: Int] {
        let rows = try session.rows(withPaths, []) { row in (row.string(0) ?? "", row.int(1) ?? 0) }
        return Dictionary(rows, uniquingKeysWith: +)
    }

    /// How many stored commits have no changed paths stored yet (`StoreCheck.commitsWithoutPaths`).
    public static func commitsWithoutPaths(in session: some SQLSession) throws -> Int {
        try session.scalarInt(withoutPaths, []) ?? 0
    }

    /// `MirrorReading.pathActivity`, for every store.
    public static func pathActivity(_ scope: PathActivityScope, in session: some SQLSession) throws -> [PathActivity] {
        guard let (conditions, values) = try activityConditions(scope, in: session) else { return [] }
        return try session.rows(activityPerPath + PortableSQL(conditions + "\nGROUP BY p.id, p.path"), values) { row in
            PathActivity(
                pathID: row.int64(0) ?? 0, path: FileChange.bytes(hexDigits: row.string(1) ?? ""), commits: row.int(2) ?? 0,
                lastCommitDate: row.string(3) ?? "")
        }
    }

    /// `MirrorReading.pathAuthors`, for every store.
    public static func pathAuthors(
        _ pathIDs: [Int64], _ scope: PathActivityScope, limit: Int, in session: some SQLSession
    ) throws -> [Int64: [PathAuthor]] {
        guard !pathIDs.isEmpty, let (conditions, values) = try activityConditions(scope, in: session) else { return [:] }
        let list = " AND cc.path_id IN (" + pathIDs.map { _ in "?" }.joined(separator: ", ") + ")"
        var authors: [Int64: [PathAuthor]] = [:]
        try session.forEachRow(authorsPerPath + PortableSQL(conditions + list + "\nGROUP BY cc.path_id, a.name"), values + pathIDs) {
            authors[$0.int64(0) ?? 0, default: []].append(PathAuthor(name: $0.string(1) ?? "", commits: $0.int(2) ?? 0))
        }
        return authors.mapValues { names in
            let ranked = names.sorted { lhs, rhs in
                lhs.commits != rhs.commits
                    ? lhs.commits > rhs.commits : Array(lhs.name.utf8).lexicographicallyPrecedes(Array(rhs.name.utf8))
            }
            return Array(ranked.prefix(limit))
        }
    }

    /// The conditions `scope` puts on `commits c`, after the statements' own; nil for an unknown repository.
    private static func activityConditions(
        _ scope: PathActivityScope, in session: some SQLSession
    ) throws -> (String, [any SQLBindable])? {
        var conditions = ""
        var values: [any SQLBindable] = []
        if let name = scope.repository {
            guard let repository = try RepositoryRows.repository(named: name, in: session) else { return nil }
            conditions +=
                " AND EXISTS (SELECT 1 FROM repository_commits rc WHERE rc.repository_id = ? AND rc.commit_id = c.id"
                + " AND rc.off_branch_since IS NULL)"
            values.append(repository.id)
        } else {
            conditions += " AND NOT c.off_branch"
        }
        if let since = scope.since {
            conditions += " AND c.committer_date >= ?"
            values.append(ISO8601Timestamp.format(since))
        }
        if let until = scope.until {
            conditions += " AND c.committer_date <= ?"
            values.append(ISO8601Timestamp.format(until))
        }
        return (conditions, values)
    }

    private static let activityPerPath = PortableSQL(
        sqlite: """
            SELECT p.id, hex(p.path), count(*), max(c.committer_date)
            FROM commit_changes cc JOIN commits c ON c.id = cc.commit_id JOIN paths p ON p.id = cc.path_id
            WHERE cc.parent = 0 AND c.parent_count <= 1
            """,
        postgreSQL: """
            SELECT p.id, encode(p.path, 'hex'), count(*), max(c.committer_date COLLATE "C")
            FROM commit_changes cc JOIN commits c ON c.id = cc.commit_id JOIN paths p ON p.id = cc.path_id
            WHERE cc.parent = 0 AND c.parent_count <= 1
            """)
    private static let authorsPerPath = PortableSQL(
        """
        SELECT cc.path_id, a.name, count(*)
        FROM commit_changes cc JOIN commits c ON c.id = cc.commit_id JOIN authors a ON a.id = c.author_id
        WHERE cc.parent = 0 AND c.parent_count <= 1
        """)

    private static let withoutPaths = PortableSQL(
        "SELECT count(*) FROM commits c WHERE NOT EXISTS (SELECT 1 FROM commit_changes_read cr WHERE cr.commit_id = c.id)")
    private static let withPaths = PortableSQL(
        """
        SELECT r.full_name, count(*) FROM repositories r JOIN repository_commits rc ON rc.repository_id = r.id
        JOIN commit_changes_read cr ON cr.commit_id = rc.commit_id GROUP BY r.id, r.full_name
        """)

    /// Per repository (sorted by name, as `repos` lists them), or only `name`'s;
    /// none for a name the store does not know.
    public static func repositories(_ name: RepositoryName?, in session: some SQLSession) throws -> [RepositoryStatistics] {
        guard let (scope, values) = try scope(name, "\nWHERE r.id = ?", in: session) else { return [] }
        return try session.rows(perRepository + scope + repositoryOrder, values) { row in
            RepositoryStatistics(repository: row.string(0) ?? "", counts: counts(of: row, from: 1))
        }
    }

    /// Per mirrored branch (by repository, then branch), or only `name`'s.
    public static func branches(_ name: RepositoryName?, in session: some SQLSession) throws -> [BranchStatistics] {
        guard let (scope, values) = try scope(name, "\nWHERE r.id = ?", in: session) else { return [] }
        return try session.rows(perBranch + scope + branchOrder, values) { row in
            BranchStatistics(
                repository: row.string(0) ?? "", branch: row.string(1) ?? "", state: row.string(2) ?? "active",
                counts: counts(of: row, from: 3))
        }
    }

    /// The counts a repository's and a branch's row end with, in the same six columns from `first`.
    private static func counts(of row: some SQLRow, from first: Int) -> CommitCounts {
        CommitCounts(
            commits: row.int(first) ?? 0, merges: row.int(first + 1) ?? 0, authors: row.int(first + 2) ?? 0,
            firstCommitDate: row.string(first + 3), lastCommitDate: row.string(first + 4), lastSyncAt: row.string(first + 5))
    }

    /// Per identity (authors row), of every commit or only `name`'s: its authored
    /// commits, and the commits crediting it (by id: a person credited under two
    /// identities on one commit counts once); nil for a name the store does not
    /// know. `wholeStoreAuthored`, when given, counts the whole store's authored
    /// commits (author id, commits, first and last date) a faster way.
    /// With `commits`, only those commits count (by store id: a path query's answer).
    public static func authorTallies(
        _ name: RepositoryName?, wholeStoreAuthored: PortableSQL? = nil, commits: Set<Int64>? = nil,
        in session: some SQLSession
    ) throws -> [Int64: AuthorTally]? {
        let clause = "\nWHERE EXISTS (SELECT 1 FROM repository_commits rc WHERE rc.repository_id = ? AND rc.commit_id = c.id)"
        guard let (scope, values) = try scope(name, clause, in: session) else { return nil }
        var tallies: [Int64: AuthorTally] = [:]
        if let commits {
            // Tallied here, commit by commit: the set is no statement's parameter.
            try session.forEachRow(perCommit + scope, values) {
                guard let commit = $0.int64(1), commits.contains(commit) else { return }
                let date = $0.string(2) ?? ""
                AuthorTally.note($0.int64(0) ?? 0, first: date, last: date, in: &tallies) { $0.commits += 1 }
            }
        } else {
            let authored = (name == nil ? wholeStoreAuthored : nil) ?? perAuthor + scope + PortableSQL("\nGROUP BY c.author_id")
            try session.forEachRow(authored, values) {
                let count = $0.int(1) ?? 0
                AuthorTally.note($0.int64(0) ?? 0, first: $0.string(2) ?? "", last: $0.string(3) ?? "", in: &tallies) {
                    $0.commits += count
                }
            }
        }
        try session.forEachRow(credited + scope, values) {
            let commit = $0.int64(1) ?? 0
            guard commits?.contains(commit) ?? true else { return }
            let date = $0.string(2) ?? ""
            AuthorTally.note($0.int64(0) ?? 0, first: date, last: date, in: &tallies) { $0.coAuthored.insert(commit) }
        }
        return tallies
    }

    /// The clause and values that keep only `name`'s rows: none for every
    /// repository, nil for a name the store does not know.
    private static func scope(
        _ name: RepositoryName?, _ clause: String, in session: some SQLSession
    ) throws -> (PortableSQL, [any SQLBindable])? {
        guard let name else { return (PortableSQL(""), []) }
        guard let repository = try RepositoryRows.repository(named: name, in: session) else { return nil }
        return (PortableSQL(clause), [repository.id])
    }

    private static let perRepository = PortableSQL(statistics: { d in
        """
        SELECT r.full_name, count(c.id), \(d.merges), count(DISTINCT a.name),
               min(\(d.bytes("c.committer_date"))), max(\(d.bytes("c.committer_date"))),
               (SELECT max(\(d.bytes("s.last_success_at"))) FROM sync_state s WHERE s.repository_id = r.id)
        FROM repositories r
        LEFT JOIN repository_commits rc ON rc.repository_id = r.id
        LEFT JOIN commits c ON c.id = rc.commit_id
        LEFT JOIN authors a ON a.id = c.author_id
        """
    })
    private static let repositoryOrder = PortableSQL(names: { "\nGROUP BY r.id\nORDER BY \($0.order("r.full_name"))" })

    private static let perBranch = PortableSQL(statistics: { d in
        """
        SELECT r.full_name, b.name, b.state, count(c.id), \(d.merges), count(DISTINCT a.name),
               min(\(d.bytes("c.committer_date"))), max(\(d.bytes("c.committer_date"))), \(d.branchSync)
        FROM repository_branches b
        JOIN repositories r ON r.id = b.repository_id
        LEFT JOIN sync_state s ON s.repository_id = b.repository_id AND s.branch = b.name
        LEFT JOIN branch_commits bc ON bc.branch_id = b.id
        LEFT JOIN commits c ON c.id = bc.commit_id
        LEFT JOIN authors a ON a.id = c.author_id
        """
    })
    private static let branchOrder = PortableSQL(
        sqlite: "\nGROUP BY b.id\nORDER BY r.full_name, b.name",
        postgreSQL: "\nGROUP BY r.id, b.id\nORDER BY lower(r.full_name COLLATE \"C\"), b.name COLLATE \"C\"")

    private static let perAuthor = PortableSQL(statistics: { d in
        """
        SELECT c.author_id, count(*), min(\(d.bytes("c.committer_date"))), max(\(d.bytes("c.committer_date")))
        FROM commits c
        """
    })
    private static let perCommit = PortableSQL("SELECT c.author_id, c.id, c.committer_date FROM commits c")
    private static let credited = PortableSQL(
        "SELECT ca.author_id, c.id, c.committer_date FROM commit_coauthors ca JOIN commits c ON c.id = ca.commit_id")
}

/// What the statistics spell differently in each dialect.
private struct StatisticsDialect: Sendable {
    /// `column` compared by its bytes: SQLite's default, PostgreSQL's `COLLATE "C"`.
    let bytes: @Sendable (_ column: String) -> String
    /// The merges among the joined commits.
    let merges: String
    /// The branch's last successful sync (PostgreSQL wants an aggregate: a
    /// branch has at most one sync_state row, so its min is that row's value).
    let branchSync: String

    static let sqlite = StatisticsDialect(
        bytes: { $0 }, merges: "coalesce(sum(c.parent_count > 1), 0)", branchSync: "s.last_success_at")
    static let postgreSQL = StatisticsDialect(
        bytes: { "\($0) COLLATE \"C\"" }, merges: "coalesce(sum(CASE WHEN c.parent_count > 1 THEN 1 ELSE 0 END), 0)",
        branchSync: "min(s.last_success_at)")
}

extension PortableSQL {
    fileprivate init(statistics statement: (StatisticsDialect) -> String) {
        self.init(sqlite: statement(.sqlite), postgreSQL: Self.numberingParameters(statement(.postgreSQL)))
    }

    /// The two statements one after the other, each in its own dialect.
    public static func + (lhs: PortableSQL, rhs: PortableSQL) -> PortableSQL {
        PortableSQL(sqlite: lhs.sqlite + rhs.sqlite, postgreSQL: lhs.postgreSQL + rhs.postgreSQL)
    }
}
