// Each repository's pull requests, as the SQLite store keeps them (Schema+PullRequests.swift).

extension PostgreSQLSchema {
    static let pullRequests = Migration(
        version: 9, name: "pull requests",
        sql: """
            CREATE TABLE pull_requests (
                repository_id bigint NOT NULL REFERENCES repositories (id) ON DELETE CASCADE,
                number bigint NOT NULL,
                title text NOT NULL,
                state text NOT NULL CHECK (state IN ('open', 'closed')),
                author_login text,
                base_ref text NOT NULL,
                head_ref text NOT NULL,
                head_sha text NOT NULL,
                -- The commit GitHub made on the base when merging (a test merge while open).
                merge_commit_sha text,
                created_at text NOT NULL,
                updated_at text NOT NULL,
                closed_at text,
                merged_at text,
                PRIMARY KEY (repository_id, number)
            );
            CREATE INDEX pull_requests_merge_commit ON pull_requests (merge_commit_sha);
            CREATE INDEX pull_requests_head ON pull_requests (head_sha);
            -- The ETag of each repository's last listing's first page, so an unchanged one is asked for
            -- conditionally, and the newest update stored, where the next listing by update may stop.
            CREATE TABLE pull_request_listings (
                repository_id bigint PRIMARY KEY REFERENCES repositories (id) ON DELETE CASCADE,
                etag text,
                updated_through text,
                listed_at text NOT NULL
            );
            """)
}
