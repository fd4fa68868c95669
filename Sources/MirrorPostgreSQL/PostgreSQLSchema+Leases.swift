// Schema version 4: the queue of sync targets and their leases, the way several
// commitsd share one database (docs/SCALING.md). Version 3 is the
// branch tables' (docs/BRANCHES.md), made on another line of work: the migrator
// applies every version a database lacks, in order, whichever was written first.
//
// A table of its own rather than columns on sync_state:
// - a target must be claimable before its first sync, when there is no
//   sync_state row yet (that row needs the repository's id from GitHub, and for
//   the default branch its name), so targets are keyed by the name a daemon is
//   configured with: the repository as written (matched case-insensitively, as
//   GitHub names are) and the branch, '' for "the default branch";
// - claims are coordination, not mirror data: `copy-store`, `backup` and
//   `check` move and read sync_state, and a lease copied into another store
//   would claim work for a daemon that never writes there;
// - renewals (every third of a lease) rewrite only these small rows, not the
//   sync state a page's transaction updates.
//
// lease_until and due_at are timestamptz set from the server's now(), never a
// daemon's clock. lease_generation grows at every claim; it is the fencing
// token every write of a claimed sync checks (WriteFence.swift).

extension PostgreSQLSchema {
    static let leaseTables = Migration(
        version: 4, name: "sync targets claimed under leases (several daemons sharing one database)",
        sql: """
            CREATE TABLE sync_leases (
                repository text NOT NULL,
                branch text NOT NULL,
                owner text,
                lease_until timestamptz,
                lease_generation bigint NOT NULL DEFAULT 0,
                due_at timestamptz NOT NULL DEFAULT now(),
                CHECK ((owner IS NULL) = (lease_until IS NULL))
            );
            CREATE UNIQUE INDEX sync_leases_target ON sync_leases (lower(repository), branch);
            CREATE INDEX sync_leases_due_at ON sync_leases (due_at);
            """)
}

// Schema version 5: a push webhook received while a target is claimed. The
// holder's sync may have read the head before the push, and its release would
// set the next due time an interval away: `pushed_at`, set by the push and
// cleared by the next claim, makes that release due now instead.
extension PostgreSQLSchema {
    static let pushedTargets = Migration(
        version: 5, name: "push webhooks on the shared queue",
        sql: "ALTER TABLE sync_leases ADD COLUMN pushed_at timestamptz;")
}
