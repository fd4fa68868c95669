// Schema version 9: which mirrored branches reach each commit
// (docs/BRANCHES.md, "Membership"). Kept by the writer in the transaction that
// records each branch's head (MirrorStore.recordSuccess, BranchMembership.swift),
// so `show` and `query --branch` read rows instead of walking the graph.

import MirrorBookkeeping

extension Schema {
    static let branchMembership = """
        -- One row per mirrored branch (one per sync_state row): what `show` names and
        -- `query --branch` selects. 'gone' is for a branch deleted on GitHub (kept, no rows).
        CREATE TABLE repository_branches (
            id INTEGER PRIMARY KEY,
            repository_id INTEGER NOT NULL REFERENCES repositories (id) ON DELETE CASCADE,
            name TEXT NOT NULL,
            state TEXT NOT NULL DEFAULT 'active' CHECK (state IN ('active', 'gone')),
            gone_since TEXT,
            UNIQUE (repository_id, name)
        );
        -- Every stored commit the branch's recorded head reaches through stored parents.
        CREATE TABLE branch_commits (
            branch_id INTEGER NOT NULL REFERENCES repository_branches (id) ON DELETE CASCADE,
            commit_id INTEGER NOT NULL REFERENCES commits (id) ON DELETE CASCADE,
            PRIMARY KEY (branch_id, commit_id)
        ) WITHOUT ROWID;
        CREATE INDEX branch_commits_commit_id ON branch_commits (commit_id);

        -- Stores made before: a branch per sync_state row, its rows by reachability from its head.
        \(BranchMembershipBackfill.branches)
        \(BranchMembershipBackfill.reach)
        INSERT OR IGNORE INTO branch_commits (branch_id, commit_id)
            SELECT r.branch_id, c.id FROM reach r JOIN commits c ON c.sha = r.sha;
        """
}

// Schema version 10: each repository's last branch listing, page by page with
// each page's ETag (BranchListingRecords), so the next run lists conditionally.
extension Schema {
    static let branchListings = """
        CREATE TABLE branch_listings (
            repository_id INTEGER PRIMARY KEY REFERENCES repositories (id) ON DELETE CASCADE,
            pages TEXT NOT NULL,            -- JSON: [{url, etag, next, branches: [{name, head}]}]
            listed_at TEXT NOT NULL
        );
        """
}
