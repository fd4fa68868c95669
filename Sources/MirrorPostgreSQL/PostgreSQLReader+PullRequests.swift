import MirrorBookkeeping
import MirrorCore
import PostgreSQL

// Pull requests on a PostgreSQL store: the shared reads (PullRequestRows), each in one read snapshot.

extension PostgreSQLReader {
    public func pullRequests(repositoryID: Int64?) throws -> [RepositoryPullRequest] {
        try read { try PullRequestRows.pullRequests(repositoryID: repositoryID, in: connection) }
    }

    public func pullRequest(_ number: Int, repositoryID: Int64) throws -> RepositoryPullRequest? {
        try read { try PullRequestRows.pullRequest(number, repositoryID: repositoryID, in: connection) }
    }

    public func pullRequests(involving sha: String) throws -> [RepositoryPullRequest] {
        try read { try PullRequestRows.pullRequests(involving: sha, in: connection) }
    }

    public func pullRequestCounts() throws -> [String: Int] {
        try read { try PullRequestRows.counts(in: connection) }
    }
}
