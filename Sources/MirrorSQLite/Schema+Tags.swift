extension Schema {
    static let tagsVersion = 14

    /// Each repository's tags, kept as rows of where each name pointed so a moved tag stays answerable.
    static let tags = """
        -- A row per place a tag name pointed to: a moved tag ends its row and starts another,
        -- a deleted one ends its row, so what a name meant stays answerable.
        CREATE TABLE tags (
            id INTEGER PRIMARY KEY,
            repository_id INTEGER NOT NULL REFERENCES repositories (id) ON DELETE CASCADE,
            name TEXT NOT NULL,
            -- The ref's own target (a tag object for an annotated tag), and the commit it peels
            -- to (NULL when it ends at a tree or a blob).
            object_sha TEXT NOT NULL,
            commit_sha TEXT,
            annotated INTEGER NOT NULL DEFAULT 0 CHECK (annotated IN (0, 1)),
            -- The tag object's fields, NULL until it is read (and always for a lightweight tag).
            tagger_name TEXT,
            tagger_email TEXT,
            tagged_at TEXT,
            message TEXT,
            first_seen_at TEXT NOT NULL,
            ended_at TEXT
        );
        CREATE UNIQUE INDEX tags_current ON tags (repository_id, name) WHERE ended_at IS NULL;
        CREATE INDEX tags_commit ON tags (commit_sha);
        -- Per commit, the earliest tag (by git's creatordate) whose commit reaches it: what `show`
        -- names, kept as tags and commits arrive instead of walked for every `show`.
        CREATE TABLE tag_containment (
            repository_id INTEGER NOT NULL REFERENCES repositories (id) ON DELETE CASCADE,
            commit_id INTEGER NOT NULL,
            tag_id INTEGER NOT NULL REFERENCES tags (id) ON DELETE CASCADE,
            PRIMARY KEY (repository_id, commit_id)
        ) WITHOUT ROWID;
        CREATE INDEX tag_containment_commit ON tag_containment (commit_id);
        -- The ETag of each repository's last tag listing, so an unchanged one is asked for conditionally,
        -- and the globs it was narrowed to (NULL: every tag), without which that ETag says nothing.
        CREATE TABLE tag_listings (
            repository_id INTEGER PRIMARY KEY REFERENCES repositories (id) ON DELETE CASCADE,
            etag TEXT,
            selection TEXT,
            listed_at TEXT NOT NULL
        );
        """
}
