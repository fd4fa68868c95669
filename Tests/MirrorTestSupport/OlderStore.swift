import SQLite

/// Stores as an older release left them, for upgrade tests: the mirrored data
/// of a store synced by today's program, copied into a store created with the
/// old schema (today's sync engine cannot write an old schema directly).
public enum OlderStore {
    /// Copies what schema version 1 holds (repositories, authors, commits,
    /// parents, memberships, sync state) from `source` into `destination`,
    /// an open store of schema version 1.
    public static func copyVersion1Data(from source: String, into destination: Connection) throws {
        try destination.execute("ATTACH DATABASE ? AS source", [source])
        try destination.executeScript(
            """
            BEGIN;
            INSERT INTO repositories (id, full_name, github_id, default_branch, html_url, added_at)
                SELECT id, full_name, github_id, default_branch, html_url, added_at FROM source.repositories;
            INSERT INTO authors (id, name, email, login, search_text)
                SELECT id, name, email, login, search_text FROM source.authors;
            INSERT INTO commits (id, sha, message, html_url, author_id, author_date, committer_id, committer_date, parent_count, tree_sha)
                SELECT id, sha, message, html_url, author_id, author_date, committer_id, committer_date, parent_count, tree_sha
                FROM source.commits;
            INSERT INTO commit_parents (commit_id, position, parent_sha)
                SELECT commit_id, position, parent_sha FROM source.commit_parents;
            INSERT INTO repository_commits (repository_id, commit_id)
                SELECT repository_id, commit_id FROM source.repository_commits;
            INSERT INTO sync_state (repository_id, branch, head_sha, head_etag, complete, last_attempt_at, last_success_at,
                                    last_error, rate_limit_remaining, rate_limit_reset_at)
                SELECT repository_id, branch, head_sha, head_etag, complete, last_attempt_at, last_success_at,
                       last_error, rate_limit_remaining, rate_limit_reset_at FROM source.sync_state;
            COMMIT;
            """)
        try destination.execute("DETACH DATABASE source")
    }
}
