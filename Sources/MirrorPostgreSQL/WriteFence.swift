import MirrorCore
import PostgreSQL

/// The checks every write transaction of a claimed sync makes: its lease's
/// (owner, generation) still holds the target's row, unexpired by the server's
/// clock. Otherwise the transaction is rolled back having written nothing, and
/// the write fails with `StoreError.leaseLost`.
///
/// The check that decides is the last statement before `COMMIT`
/// (`checkBeforeCommit`): `FOR SHARE` keeps the row as it was checked until the
/// transaction ends, so a claim by another daemon (`FOR UPDATE SKIP LOCKED`)
/// skips it for that instant, and a claim that was already updating it makes
/// the check wait and then see the new generation. So no write commits after
/// another owner's claim, however long its writer was paused. The check when the
/// transaction begins locks nothing: it only spares a lost lease the work. A
/// writer stopped inside a transaction thus holds the row for no longer than its
/// session lives, which the server bounds (`StoreSession.bound(_:toLease:)`).
///
/// A fenced writer never drops the indexes for a bulk load (BulkLoadIndexes:
/// other daemons write meanwhile); rebuilding a missing index is not fenced: it
/// only repairs, whoever does it.
struct WriteFence {
    /// Who holds the claim: a daemon, one of several writing the store at any
    /// moment, or a one-shot command (`QueueClaim`).
    enum Holder {
        case daemon
        case command
    }

    let lease: SyncLease
    var holder = Holder.daemon

    /// Whether the writer may still drop the indexes for a bulk load: a command's, never a daemon's.
    var allowsBulkLoad: Bool { holder == .command }

    /// Whether the lease still holds when the transaction begins; locks nothing.
    func check(on connection: PostgreSQLConnection) throws {
        try check(on: connection, lockingTheRow: false)
    }

    /// Whether the lease still holds now, the row kept as checked until the transaction ends.
    func checkBeforeCommit(on connection: PostgreSQLConnection) throws {
        try check(on: connection, lockingTheRow: true)
    }

    private func check(on connection: PostgreSQLConnection, lockingTheRow: Bool) throws {
        // statement_timestamp(), not now(): now() is when the transaction began.
        let holds = try connection.execute(
            """
            SELECT 1 FROM sync_leases
            WHERE lower(repository) = lower($1) AND branch = $2 AND owner = $3 AND lease_generation = $4
                AND lease_until > statement_timestamp()
            """ + (lockingTheRow ? " FOR SHARE" : ""),
            [lease.target.repository.description, lease.target.storedBranch, lease.owner, lease.generation])
        guard holds.count == 1 else { throw StoreError.leaseLost(lease) }
    }
}

extension SyncTarget {
    /// The branch as `sync_leases` keys it: '' for the repository's default branch.
    var storedBranch: String { branch ?? "" }
}
