// Schema version 2: the page tables shaped for bulk writes.
//
// Measured on a 100k-commit first sync (pg_stat_statements, BENCHMARKS.md §8),
// the statement that inserts a page spent a third of its time in per-row
// foreign-key checks (each one a query and a row lock, five per commit) and a
// third in the trigram index, every message inserted into the GIN tree one by one.
//
// - Foreign keys. A page's rows are written by set-based statements that take
//   every id they store from the row they name, in the same statement: a
//   commit's parents and co-authors from the commit just inserted (RETURNING),
//   authors and commits by joining on what is stored. Nothing deletes an author;
//   only `prune` and `repos remove --purge` delete commits or memberships, and
//   they lock the page tables first (PostgreSQLStore+Removal.swift), so no page
//   is between its read and its write while they run. What the checks still did
//   was cascade deletions: statement-level triggers do that now, once per
//   statement, and `check` looks for rows whose parent row is missing
//   (PostgreSQLReader+Check.swift). The other tables keep their foreign keys.
// - The message index. GIN's "fast update" appends new entries to a pending list
//   that every search also reads, so `--grep` stays exact, and merges the list
//   into the tree in one sorted pass. PostgreSQL merges when the list passes
//   gin_pending_list_limit (4 MB by default, merging with work_mem): raised to
//   256 MB, the merge happens when the writer asks for it after a sync's pages
//   (MessageIndexCatchUp.swift), or when autovacuum visits the table.

extension PostgreSQLSchema {
    static let bulkPageTables = Migration(
        version: 2, name: "page tables without per-row foreign-key checks; the message index merged in bulk",
        sql: """
            ALTER TABLE commits DROP CONSTRAINT commits_author_id_fkey, DROP CONSTRAINT commits_committer_id_fkey;
            ALTER TABLE commit_parents DROP CONSTRAINT commit_parents_commit_id_fkey;
            ALTER TABLE commit_coauthors
                DROP CONSTRAINT commit_coauthors_commit_id_fkey, DROP CONSTRAINT commit_coauthors_author_id_fkey;
            ALTER TABLE repository_commits
                DROP CONSTRAINT repository_commits_commit_id_fkey, DROP CONSTRAINT repository_commits_repository_id_fkey;

            -- What ON DELETE CASCADE did, once per statement instead of once per row.
            CREATE FUNCTION commits_deleted_cascade() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                DELETE FROM commit_parents WHERE commit_id IN (SELECT id FROM gone);
                DELETE FROM commit_coauthors WHERE commit_id IN (SELECT id FROM gone);
                DELETE FROM repository_commits WHERE commit_id IN (SELECT id FROM gone);
                RETURN NULL;
            END $$;
            CREATE TRIGGER commits_deleted_cascade AFTER DELETE ON commits
                REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION commits_deleted_cascade();
            CREATE FUNCTION repositories_deleted_cascade() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                DELETE FROM repository_commits WHERE repository_id IN (SELECT id FROM gone);
                RETURN NULL;
            END $$;
            CREATE TRIGGER repositories_deleted_cascade AFTER DELETE ON repositories
                REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION repositories_deleted_cascade();

            ALTER INDEX commits_message_trgm SET (fastupdate = on, gin_pending_list_limit = 262144);
            """)
}
