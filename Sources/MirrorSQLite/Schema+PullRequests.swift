extension Schema {
    static let pullRequestsVersion = 15

    /// Each repository's pull requests, one row per number, updated as GitHub's listing changes.
    static let pullRequests = """
        CREATE TABLE pull_requests (
            repository_id INTEGER NOT NULL REFERENCES repositories (id) ON DELETE CASCADE,
            number INTEGER NOT NULL,
            title TEXT NOT NULL,
            state TEXT NOT NULL CHECK (state IN ('open', 'closed')),
            author_login TEXT,
            base_ref TEXT NOT NULL,
            head_ref TEXT NOT NULL,
            head_sha TEXT NOT NULL,
            -- The commit GitHub made on the base when merging (a test merge while open).
            merge_commit_sha TEXT,
            created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL,
            closed_at TEXT,
            merged_at TEXT,
            PRIMARY KEY (repository_id, number)
        ) WITHOUT ROWID;
        CREATE INDEX pull_requests_merge_commit ON pull_requests (merge_commit_sha);
        CREATE INDEX pull_requests_head ON pull_requests (head_sha);
        -- The ETag of each repository's last listing's first page, so an unchanged one is asked for
        -- conditionally, and the newest update stored, where the next listing by update may stop.
        CREATE TABLE pull_request_listings (
            repository_id INTEGER PRIMARY KEY REFERENCES repositories (id) ON DELETE CASCADE,
            etag TEXT,
            updated_through TEXT,
            listed_at TEXT NOT NULL
        );
        """
}
