extension Schema {
    static let changesVersion = 13

    /// Version 13: the paths each commit changed against each of its parents,
    /// read from git's trees (docs/STORE.md, "Changed paths").
    static let changes = """
        -- Every path any stored change names, once: a change row holds its id, so a path
        -- repeated in thousands of commits is stored once and a pathspec is matched once per path.
        CREATE TABLE paths (
            id INTEGER PRIMARY KEY,
            path BLOB NOT NULL UNIQUE
        );
        -- What a commit changed against one parent (0 = the first, and a root commit's empty
        -- tree), as git diff-tree -r --raw --no-renames: the old side is NULL for an addition,
        -- the new side for a deletion. Modes are git's octal numbers, ids 20 bytes.
        CREATE TABLE commit_changes (
            commit_id INTEGER NOT NULL REFERENCES commits (id) ON DELETE CASCADE,
            parent INTEGER NOT NULL,
            path_id INTEGER NOT NULL REFERENCES paths (id),
            old_mode INTEGER,
            old_object BLOB,
            new_mode INTEGER,
            new_object BLOB,
            PRIMARY KEY (commit_id, parent, path_id),
            CHECK (old_mode IS NOT NULL OR new_mode IS NOT NULL)
        ) WITHOUT ROWID;
        CREATE INDEX commit_changes_path ON commit_changes (path_id, commit_id);
        -- The commits whose changes are stored (a commit that changed nothing has no row above):
        -- any other commit's paths are not known yet, and path answers count it.
        CREATE TABLE commit_changes_read (
            commit_id INTEGER PRIMARY KEY REFERENCES commits (id) ON DELETE CASCADE
        );
        """
}
