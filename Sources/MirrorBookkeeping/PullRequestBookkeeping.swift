import Foundation
import MirrorCore

// `PullRequestRecords` written once for both stores: each listed pull request
// is compared with its stored row, and only what changed is written.

extension SQLBookkeeping {
    public func recordPullRequests(_ pullRequests: [PullRequest], repositoryID: Int64) throws -> PullRequestChanges {
        try write {
            var changes = PullRequestChanges()
            var seen = Set<Int>()
            for pull in pullRequests where seen.insert(pull.number).inserted {
                let stored = try session.firstRow(PullRequestRows.one, [repositoryID, pull.number]) {
                    PullRequestRows.pullRequest(from: $0, at: 0)
                }
                if stored == pull { continue }
                try session.run(stored == nil ? PullRequestStatements.insert : PullRequestStatements.update, values(of: pull, repositoryID))
                if stored == nil { changes.added += 1 } else { changes.updated += 1 }
                if pull.mergedAt != nil, let merge = pull.mergeCommitSHA,
                    try session.firstRow(
                        PullRequestStatements.mergeNotHeld, [repositoryID, pull.baseRef, merge.lowercased()], { _ in true }) != nil
                {
                    changes.mergesNotHeld.append(pull.number)
                }
            }
            return changes
        }
    }

    public func recordPullRequestListing(repositoryID: Int64, etag: String?, updatedThrough: String?, at date: Date) throws {
        try write {
            _ = try session.run(
                PullRequestStatements.recordListing,
                [repositoryID, etag, updatedThrough, ISO8601Timestamp.formatMilliseconds(date)])
        }
    }

    public func recordPullRequestListingUnchanged(repositoryID: Int64, at date: Date) throws {
        try write {
            _ = try session.run(PullRequestStatements.touchListing, [ISO8601Timestamp.formatMilliseconds(date), repositoryID])
        }
    }

    public func pullRequestListing(repositoryID: Int64) throws -> StoredPullRequestListing {
        try session.firstRow(PullRequestStatements.listing, [repositoryID]) {
            StoredPullRequestListing(etag: $0.string(0), updatedThrough: $0.string(1), listedAt: $0.string(2))
        } ?? StoredPullRequestListing()
    }

    /// The row's values after its key, in the order both `insert` and `update` bind them.
    private func values(of pull: PullRequest, _ repositoryID: Int64) -> [any SQLBindable] {
        [
            pull.title, pull.state.rawValue, pull.authorLogin, pull.baseRef, pull.headRef, pull.headSHA,
            pull.mergeCommitSHA, pull.createdAt, pull.updatedAt, pull.closedAt, pull.mergedAt, repositoryID, pull.number,
        ]
    }
}

private enum PullRequestStatements {
    static let insert = PortableSQL(
        """
        INSERT INTO pull_requests (title, state, author_login, base_ref, head_ref, head_sha, merge_commit_sha,
                                   created_at, updated_at, closed_at, merged_at, repository_id, number)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        """)
    static let update = PortableSQL(
        """
        UPDATE pull_requests SET title = ?, state = ?, author_login = ?, base_ref = ?, head_ref = ?, head_sha = ?,
            merge_commit_sha = ?, created_at = ?, updated_at = ?, closed_at = ?, merged_at = ?
        WHERE repository_id = ? AND number = ?
        """)
    static let recordListing = PortableSQL(
        """
        INSERT INTO pull_request_listings (repository_id, etag, updated_through, listed_at) VALUES (?, ?, ?, ?)
        ON CONFLICT (repository_id) DO UPDATE SET etag = excluded.etag, updated_through = excluded.updated_through,
            listed_at = excluded.listed_at
        """)
    static let listing = PortableSQL(
        "SELECT etag, updated_through, listed_at FROM pull_request_listings WHERE repository_id = ?")
    static let touchListing = PortableSQL("UPDATE pull_request_listings SET listed_at = ? WHERE repository_id = ?")
    /// A row when the pull request merged into the repository's default branch, which is synced
    /// before the listing is read, as a commit the repository's history does not hold.
    static let mergeNotHeld = PortableSQL(
        """
        SELECT 1 FROM repositories r WHERE r.id = ? AND r.default_branch = ?
        AND NOT EXISTS (SELECT 1 FROM commits c JOIN repository_commits rc ON rc.commit_id = c.id AND rc.repository_id = r.id
                        WHERE c.sha = ?)
        """)
}
