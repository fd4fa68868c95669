import MirrorBookkeeping
import MirrorCore
import PostgreSQL

// `authors` and `stats` on a PostgreSQL store: the counts of MirrorBookkeeping's
// StatisticsRows, as every store counts them.

extension PostgreSQLReader {
    public func authorStatistics(repository name: RepositoryName?, top: Int?, mailmap: Mailmap?) throws -> [AuthorStatistics] {
        try read {
            guard let tallies = try StatisticsRows.authorTallies(name, in: connection) else { return [] }
            return AuthorStatistics.ranked(try people(mailmap: mailmap), tallies: tallies, mailmap: mailmap, top: top)
        }
    }

    public func authorStatistics(
        repository name: RepositoryName?, commits: Set<Int64>, top: Int?, mailmap: Mailmap?
    ) throws -> [AuthorStatistics] {
        try read {
            guard let tallies = try StatisticsRows.authorTallies(name, commits: commits, in: connection) else { return [] }
            return AuthorStatistics.ranked(try people(mailmap: mailmap), tallies: tallies, mailmap: mailmap, top: top)
        }
    }

    public func pathActivity(_ scope: PathActivityScope) throws -> [PathActivity] {
        try read { try StatisticsRows.pathActivity(scope, in: connection) }
    }

    public func pathAuthors(_ pathIDs: [Int64], _ scope: PathActivityScope, limit: Int) throws -> [Int64: [PathAuthor]] {
        try read { try StatisticsRows.pathAuthors(pathIDs, scope, limit: limit, in: connection) }
    }

    public func commitsWithPaths() throws -> [String: Int] {
        try read { try StatisticsRows.commitsWithPaths(in: connection) }
    }

    public func repositoryStatistics(repository name: RepositoryName?) throws -> [RepositoryStatistics] {
        try read { try StatisticsRows.repositories(name, in: connection) }
    }

    public func branchStatistics(repository name: RepositoryName?) throws -> [BranchStatistics] {
        try read { try StatisticsRows.branches(name, in: connection) }
    }
}
