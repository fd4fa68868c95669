import MirrorCore
import PostgreSQL

/// The check every write transaction of a claimed sync makes first, inside the
/// transaction: its lease's (owner, generation) still holds the target's row,
/// unexpired by the server's clock. Otherwise the transaction is rolled back
/// having written nothing, and the write fails with `StoreError.leaseLost`.
///
/// `FOR SHARE` keeps the row as it was checked until the transaction ends: a
/// claim by another daemon (`FOR UPDATE SKIP LOCKED`) skips it meanwhile, and a
/// claim that was already updating it makes the check wait and then see the new
/// generation. So no write commits after another owner's claim, however long its
/// writer was paused before it.
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

    func check(on connection: PostgreSQLConnection) throws {
        let holds = try connection.execute(
            """
            SELECT 1 FROM sync_leases
            WHERE lower(repository) = lower($1) AND branch = $2 AND owner = $3 AND lease_generation = $4
                AND lease_until > now()
            FOR SHARE
            """,
            [lease.target.repository.description, lease.target.storedBranch, lease.owner, lease.generation])
        guard holds.count == 1 else { throw StoreError.leaseLost(lease) }
    }
}

extension SyncTarget {
    /// The branch as `sync_leases` keys it: '' for the repository's default branch.
    var storedBranch: String { branch ?? "" }
}
