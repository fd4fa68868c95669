import MirrorCore
import SQLite

/// The store's schema, as numbered migrations. Never edit a released
/// migration: add a new one. docs/STORE.md documents the resulting tables.
enum Schema {
    /// Keep `commits_fts` exact in the same transaction as every insert, update
    /// and delete of a commit (versions 2 and 4 create the same triggers;
    /// version 5 replaces the insert trigger by one statement per batch, and
    /// version 11 puts the index behind a watermark: Schema+MessageIndex.swift).
    static let messageIndexTriggers = """
        CREATE TRIGGER commits_fts_after_insert AFTER INSERT ON commits BEGIN
            INSERT INTO commits_fts (rowid, message) VALUES (new.id, new.message);
        END;
        CREATE TRIGGER commits_fts_after_delete AFTER DELETE ON commits BEGIN
            INSERT INTO commits_fts (commits_fts, rowid, message) VALUES ('delete', old.id, old.message);
        END;
        CREATE TRIGGER commits_fts_after_update AFTER UPDATE OF id, message ON commits
        WHEN old.id IS NOT new.id OR old.message IS NOT new.message BEGIN
            INSERT INTO commits_fts (commits_fts, rowid, message) VALUES ('delete', old.id, old.message);
            INSERT INTO commits_fts (rowid, message) VALUES (new.id, new.message);
        END;
        """

    static let migrator = Migrator([
        .init(
            version: 1, name: "mirror core tables",
            sql: """
                CREATE TABLE repositories (
                    id INTEGER PRIMARY KEY,
                    full_name TEXT NOT NULL UNIQUE COLLATE NOCASE,
                    github_id INTEGER UNIQUE,
                    default_branch TEXT,
                    html_url TEXT,
                    added_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))
                );

                CREATE TABLE authors (
                    id INTEGER PRIMARY KEY,
                    name TEXT NOT NULL,
                    email TEXT NOT NULL,
                    login TEXT,
                    -- lowercased "name <email>" (Unicode-aware, done by the program) for
                    -- case-insensitive substring search that behaves like git log's author filter.
                    search_text TEXT NOT NULL,
                    UNIQUE (name, email)
                );
                CREATE INDEX authors_name_nocase ON authors (name COLLATE NOCASE);
                CREATE INDEX authors_email_nocase ON authors (email COLLATE NOCASE);

                CREATE TABLE commits (
                    id INTEGER PRIMARY KEY,
                    sha TEXT NOT NULL UNIQUE,
                    message TEXT NOT NULL,
                    html_url TEXT,
                    author_id INTEGER NOT NULL REFERENCES authors (id),
                    author_date TEXT NOT NULL,      -- ISO 8601 UTC: 2023-08-28T18:27:45Z
                    committer_id INTEGER NOT NULL REFERENCES authors (id),
                    committer_date TEXT NOT NULL,   -- ISO 8601 UTC; git log order
                    parent_count INTEGER NOT NULL,  -- > 1 for merges
                    tree_sha TEXT
                );
                CREATE INDEX commits_committer_date ON commits (committer_date);
                CREATE INDEX commits_author_date ON commits (author_date);
                CREATE INDEX commits_author_id ON commits (author_id, committer_date);
                CREATE INDEX commits_committer_id ON commits (committer_id, committer_date);

                CREATE TABLE commit_parents (
                    commit_id INTEGER NOT NULL REFERENCES commits (id) ON DELETE CASCADE,
                    position INTEGER NOT NULL,      -- 0 = first parent
                    parent_sha TEXT NOT NULL,
                    PRIMARY KEY (commit_id, position)
                ) WITHOUT ROWID;

                CREATE TABLE repository_commits (
                    repository_id INTEGER NOT NULL REFERENCES repositories (id) ON DELETE CASCADE,
                    commit_id INTEGER NOT NULL REFERENCES commits (id) ON DELETE CASCADE,
                    PRIMARY KEY (repository_id, commit_id)
                ) WITHOUT ROWID;
                CREATE INDEX repository_commits_commit_id ON repository_commits (commit_id);

                -- Per repository and branch: what is known to be mirrored completely.
                CREATE TABLE sync_state (
                    repository_id INTEGER NOT NULL REFERENCES repositories (id) ON DELETE CASCADE,
                    branch TEXT NOT NULL,
                    head_sha TEXT,                  -- newest head whose whole history is stored
                    head_etag TEXT,                 -- ETag of the last head probe, sent back as If-None-Match
                    complete INTEGER NOT NULL DEFAULT 0,
                    last_attempt_at TEXT,
                    last_success_at TEXT,
                    last_error TEXT,
                    rate_limit_remaining INTEGER,
                    rate_limit_reset_at TEXT,
                    PRIMARY KEY (repository_id, branch)
                );

                -- Walks in progress: listings pinned to one head, resumable page by page.
                CREATE TABLE sync_walks (
                    id INTEGER PRIMARY KEY,
                    repository_id INTEGER NOT NULL,
                    branch TEXT NOT NULL,
                    head_sha TEXT NOT NULL,
                    next_url TEXT,                  -- NULL until the first page is stored
                    pages_done INTEGER NOT NULL DEFAULT 0,
                    pages_total INTEGER,
                    started_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),
                    FOREIGN KEY (repository_id, branch) REFERENCES sync_state (repository_id, branch) ON DELETE CASCADE
                );

                -- Parents referenced by a walk's commits that are not stored yet: the
                -- walk continues until this is empty (exactness across merges).
                CREATE TABLE sync_frontier (
                    walk_id INTEGER NOT NULL REFERENCES sync_walks (id) ON DELETE CASCADE,
                    sha TEXT NOT NULL,
                    PRIMARY KEY (walk_id, sha)
                ) WITHOUT ROWID;
                """),
        .init(
            version: 2, name: "message search index and author commit counts",
            sql: """
                -- Case-insensitive substring search of commit messages.
                -- The trigram tokenizer indexes every 3-character window, folded to lower case,
                -- so a phrase query of 3 or more characters is exactly a substring test.
                -- External content: the text lives only in commits.message; the triggers below
                -- keep the index exact in the same transaction as every insert, update and delete.
                CREATE VIRTUAL TABLE commits_fts USING fts5 (
                    message,
                    content = 'commits',
                    content_rowid = 'id',
                    tokenize = 'trigram case_sensitive 0'
                );

                \(messageIndexTriggers)

                -- Stores created before this migration: index what they hold.
                INSERT INTO commits_fts (commits_fts) VALUES ('rebuild');

                -- Commits per author row, kept by triggers in the writing transaction, so
                -- a commit can be shown as "commit k of N" without counting N commits.
                CREATE TABLE author_commit_counts (
                    author_id INTEGER PRIMARY KEY REFERENCES authors (id) ON DELETE CASCADE,
                    commits INTEGER NOT NULL
                );
                INSERT INTO author_commit_counts (author_id, commits)
                    SELECT author_id, count(*) FROM commits GROUP BY author_id;

                CREATE TRIGGER author_commit_counts_after_insert AFTER INSERT ON commits BEGIN
                    INSERT INTO author_commit_counts (author_id, commits) VALUES (new.author_id, 1)
                        ON CONFLICT (author_id) DO UPDATE SET commits = commits + 1;
                END;
                CREATE TRIGGER author_commit_counts_after_delete AFTER DELETE ON commits BEGIN
                    UPDATE author_commit_counts SET commits = commits - 1 WHERE author_id = old.author_id;
                END;
                CREATE TRIGGER author_commit_counts_after_update AFTER UPDATE OF author_id ON commits
                WHEN old.author_id IS NOT new.author_id BEGIN
                    UPDATE author_commit_counts SET commits = commits - 1 WHERE author_id = old.author_id;
                    INSERT INTO author_commit_counts (author_id, commits) VALUES (new.author_id, 1)
                        ON CONFLICT (author_id) DO UPDATE SET commits = commits + 1;
                END;
                """),
        .init(
            version: 3, name: "history rewrites keep their commits; walks re-list missing parents",
            sql: """
                -- A confirmed force-push leaves commits off every mirrored branch. They stay
                -- stored (only an explicit prune removes them); the time says since when.
                ALTER TABLE repository_commits ADD COLUMN off_branch_since TEXT;
                -- 1 when every repository holding the commit has it off-branch: derived from
                -- repository_commits, kept beside the row so queries hide such commits for free.
                ALTER TABLE commits ADD COLUMN off_branch INTEGER NOT NULL DEFAULT 0;

                -- The sha the walk's current listing is pinned to: its head first, then any
                -- parent the server left out, listed on its own. Its first element must be it.
                ALTER TABLE sync_walks ADD COLUMN listing_sha TEXT;

                -- Every name a repository has been mirrored or known by (renames, transfers,
                -- the name a user typed): a repository is its GitHub id, found by any of them.
                CREATE TABLE repository_names (
                    name TEXT PRIMARY KEY COLLATE NOCASE,
                    repository_id INTEGER NOT NULL REFERENCES repositories (id) ON DELETE CASCADE
                ) WITHOUT ROWID;
                CREATE INDEX repository_names_repository_id ON repository_names (repository_id);
                INSERT INTO repository_names (name, repository_id) SELECT full_name, id FROM repositories;
                """),
        .init(
            version: 4, name: "co-authors; message index Datasette recognises",
            sql: """
                -- Co-authored-by: trailers, parsed from each message (Commit.coAuthors): one row
                -- per credited identity, in message order. Identities are authors rows.
                CREATE TABLE commit_coauthors (
                    commit_id INTEGER NOT NULL REFERENCES commits (id) ON DELETE CASCADE,
                    position INTEGER NOT NULL,      -- 0 = first trailer
                    author_id INTEGER NOT NULL REFERENCES authors (id),
                    PRIMARY KEY (commit_id, position)
                ) WITHOUT ROWID;
                CREATE INDEX commit_coauthors_author_id ON commit_coauthors (author_id, commit_id);

                -- The same index as version 2, spelled content="commits": Datasette finds a
                -- table's full-text index by that exact spelling in its CREATE statement.
                DROP TRIGGER commits_fts_after_insert;
                DROP TRIGGER commits_fts_after_delete;
                DROP TRIGGER commits_fts_after_update;
                DROP TABLE commits_fts;
                CREATE VIRTUAL TABLE commits_fts USING fts5 (
                    message,
                    content="commits",
                    content_rowid="id",
                    tokenize = 'trigram case_sensitive 0'
                );
                \(messageIndexTriggers)
                INSERT INTO commits_fts (commits_fts) VALUES ('rebuild');
                """, backfill: MirrorStore.backfillCoAuthors),
        .init(
            version: 5, name: "message index written once per batch of new commits",
            sql: """
                -- FTS5 writes its pending terms out at every statement savepoint, so the
                -- per-row insert trigger made one tiny index segment per stored commit: most
                -- of a sync's CPU. The writer now indexes each batch of new commits with one
                -- statement in the transaction that inserts them (MirrorStore.upsert).
                -- Updates and deletes of a message keep their triggers.
                DROP TRIGGER commits_fts_after_insert;
                """),
        .init(
            version: 6, name: "repository lifecycle; owner listings",
            sql: """
                -- Whether a repository is still mirrored: 'active'; 'gone' when it left its owner's
                -- listing or GitHub answered 404 for it (history kept, no longer polled, active again
                -- when it reappears); 'removed' when the user stopped mirroring it (history kept).
                ALTER TABLE repositories ADD COLUMN state TEXT NOT NULL DEFAULT 'active'
                    CHECK (state IN ('active', 'gone', 'removed'));
                ALTER TABLE repositories ADD COLUMN state_changed_at TEXT;
                ALTER TABLE repositories ADD COLUMN state_reason TEXT;

                -- The last listing of each owner's repositories (OWNER/* patterns), page by page with
                -- each page's ETag, so an unchanged owner costs conditional requests answered 304.
                CREATE TABLE owner_listings (
                    owner TEXT PRIMARY KEY COLLATE NOCASE,
                    kind TEXT NOT NULL CHECK (kind IN ('organization', 'user')),
                    pages TEXT NOT NULL,            -- JSON: [{url, etag, next, repositories: [...]}]
                    listed_at TEXT NOT NULL
                );
                """),
        .init(
            version: 7, name: "requests spent per token",
            sql: """
                -- What each token spent, per minute and kind of request, for `status --requests`.
                -- A token is named by where it came from (`environment variable GITHUB_TOKEN`),
                -- never by its value or anything derived from it. Rows older than a day are pruned.
                CREATE TABLE request_counts (
                    token TEXT NOT NULL,
                    minute TEXT NOT NULL,           -- UTC start of the minute, ISO 8601
                    kind TEXT NOT NULL,             -- RequestKind: poll, page, owner_listing, …
                    requests INTEGER NOT NULL,
                    not_modified INTEGER NOT NULL,
                    points INTEGER NOT NULL,
                    PRIMARY KEY (token, minute, kind)
                ) WITHOUT ROWID;
                """),
        .init(
            version: 8, name: "change cursor: a number for every commit joining a repository",
            sql: """
                -- `query --follow` waits for what arrived after a cursor. Commit row ids cannot
                -- be it: a stored commit that joins another repository (a fork) gets no new row,
                -- and SQLite gives a new row the id of a deleted newest one (prune). So each
                -- membership carries the number of the change that made it visible: when it is
                -- added, and again when a history comes back to it (off-branch mark cleared).
                -- Numbers come from one counter row, only ever raised, never reused, given in commit
                -- order since one writer holds the lock (not a bare PostgreSQL sequence: concurrent
                -- transactions commit its numbers out of order). A counter row rather than an
                -- AUTOINCREMENT log table: the number sits on the row it describes (no second table
                -- as large as this one to join and cascade), and the writer reads and writes the one
                -- row once per stored page.
                CREATE TABLE change_counter (
                    id INTEGER PRIMARY KEY CHECK (id = 1),
                    last INTEGER NOT NULL           -- the latest number given out
                );
                ALTER TABLE repository_commits ADD COLUMN change_seq INTEGER;
                -- Memberships stored before: numbered in the order their commits were stored.
                UPDATE repository_commits SET change_seq = numbered.seq
                FROM (SELECT repository_id, commit_id,
                             row_number() OVER (ORDER BY commit_id, repository_id) AS seq
                      FROM repository_commits) AS numbered
                WHERE repository_commits.repository_id = numbered.repository_id
                  AND repository_commits.commit_id = numbered.commit_id;
                INSERT INTO change_counter (id, last) SELECT 1, count(*) FROM repository_commits;
                -- Not UNIQUE: the writer inserts with OR IGNORE, which would silently drop a
                -- membership on a clash instead of failing.
                CREATE INDEX repository_commits_change_seq ON repository_commits (change_seq);

                -- A membership without a number would never reach a follower: refuse it, whichever
                -- code path writes it (MirrorStore.upsert numbers every membership it adds).
                CREATE TRIGGER repository_commits_numbered BEFORE INSERT ON repository_commits
                WHEN new.change_seq IS NULL BEGIN
                    SELECT RAISE(ABORT, 'repository_commits.change_seq is required (schema version 8)');
                END;
                -- A commit a branch reaches again re-enters queries: a new arrival. Marks are cleared
                -- by one set-based UPDATE (MirrorStore.markOffBranch), so each row is numbered here.
                CREATE TRIGGER repository_commits_returned AFTER UPDATE OF off_branch_since ON repository_commits
                WHEN old.off_branch_since IS NOT NULL AND new.off_branch_since IS NULL BEGIN
                    UPDATE change_counter SET last = last + 1;
                    UPDATE repository_commits SET change_seq = (SELECT last FROM change_counter)
                    WHERE repository_id = new.repository_id AND commit_id = new.commit_id;
                END;
                """),
        .init(version: 9, name: "branches and the commits each one reaches", sql: branchMembership),
        .init(version: 10, name: "branch listings kept between runs", sql: branchListings),
        .init(version: messageIndexWatermarkVersion, name: "message index behind a watermark", sql: messageIndexWatermark),
        .init(version: messageIndexMergesVersion, name: "message index merges 16 segments at a time", sql: messageIndexMerges),
        .init(version: changesVersion, name: "the paths each commit changed", sql: changes),
        .init(version: tagsVersion, name: "tags, and where each one pointed", sql: tags),
        .init(version: pullRequestsVersion, name: "pull requests", sql: pullRequests),
    ])
}
