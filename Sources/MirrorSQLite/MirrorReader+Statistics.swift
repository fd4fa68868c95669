import MirrorBookkeeping
import MirrorCore
import SQLite

// `authors` and `stats` on a SQLite store: the counts of MirrorBookkeeping's
// StatisticsRows, as every store counts them; the ranking rules are MirrorCore's.

extension MirrorReader {
    /// People by number of commits authored (most first, then co-authored,
    /// then by name), optionally of one repository; `top` keeps the first ones.
    public func authorStatistics(
        repository name: RepositoryName? = nil, top: Int? = nil,
        mailmap: Mailmap? = nil
    ) throws -> [AuthorStatistics] {
        let fromCounts = try name == nil && !BulkLoadIndexes.anyMissing(db) ? Self.authoredFromCounts : nil
        guard let tallies = try StatisticsRows.authorTallies(name, wholeStoreAuthored: fromCounts, in: db) else { return [] }
        return AuthorStatistics.ranked(try people(mailmap: mailmap), tallies: tallies, mailmap: mailmap, top: top)
    }

    public func authorStatistics(
        repository name: RepositoryName?, commits: Set<Int64>, top: Int?, mailmap: Mailmap?
    ) throws -> [AuthorStatistics] {
        try db.transaction(.deferred) {
            guard let tallies = try StatisticsRows.authorTallies(name, commits: commits, in: db) else { return [] }
            return AuthorStatistics.ranked(try people(mailmap: mailmap), tallies: tallies, mailmap: mailmap, top: top)
        }
    }

    /// Every author's commits from `author_commit_counts` (kept by triggers), and
    /// its first and last dates from the two ends of its range of the
    /// `commits_author_id` index: two seeks per author where grouping the
    /// commits reads every entry of that index (docs/MEASURED-REASONS.md, "Measured
    /// reasons: authors"). Only while the index is there: a bulk load has it away.
    static let authoredFromCounts = PortableSQL(
        """
        SELECT n.author_id, n.commits,
               (SELECT min(committer_date) FROM commits WHERE author_id = n.author_id),
               (SELECT max(committer_date) FROM commits WHERE author_id = n.author_id)
        FROM author_commit_counts n WHERE n.commits > 0
        """)

    /// Per repository (sorted by name), or only `repository`.
    public func repositoryStatistics(repository name: RepositoryName? = nil) throws -> [RepositoryStatistics] {
        try StatisticsRows.repositories(name, in: db)
    }

    public func branchStatistics(repository name: RepositoryName? = nil) throws -> [BranchStatistics] {
        try StatisticsRows.branches(name, in: db)
    }

    public func commitsWithPaths() throws -> [String: Int] {
        try StatisticsRows.commitsWithPaths(in: db)
    }

    public func pathActivity(_ scope: PathActivityScope) throws -> [PathActivity] {
        try StatisticsRows.pathActivity(scope, in: db)
    }

    public func pathAuthors(_ pathIDs: [Int64], _ scope: PathActivityScope, limit: Int) throws -> [Int64: [PathAuthor]] {
        try StatisticsRows.pathAuthors(pathIDs, scope, limit: limit, in: db)
    }
}
