import MirrorBookkeeping
import MirrorCore
import SQLite

// Pull requests on a SQLite store: the shared reads (PullRequestRows), each in one read transaction.

extension MirrorReader {
    public func pullRequests(repositoryID: Int64?) throws -> [RepositoryPullRequest] {
        try db.transaction(.deferred) { try PullRequestRows.pullRequests(repositoryID: repositoryID, in: db) }
    }

    public func pullRequest(_ number: Int, repositoryID: Int64) throws -> RepositoryPullRequest? {
        try db.transaction(.deferred) { try PullRequestRows.pullRequest(number, repositoryID: repositoryID, in: db) }
    }

    public func pullRequests(involving sha: String) throws -> [RepositoryPullRequest] {
        try db.transaction(.deferred) { try PullRequestRows.pullRequests(involving: sha, in: db) }
    }

    public func pullRequestCounts() throws -> [String: Int] {
        try db.transaction(.deferred) { try PullRequestRows.counts(in: db) }
    }
}
