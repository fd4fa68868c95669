import Foundation
import MirrorCore
import PostgreSQL

/// The queue of sync targets and their leases in the database (`sync_leases`,
/// schema version 4), shared by every daemon using it, on a connection of its own.
///
/// Claiming is the shape PostgreSQL job queues converged on (River, Oban,
/// graphile-worker, solid_queue): a `MATERIALIZED` CTE picks the due rows
/// `FOR UPDATE SKIP LOCKED`, so concurrent claimers never wait for one another
/// and never get the same row, and one `UPDATE … RETURNING` sets the owner, the
/// lease's end and the next generation. Every time is the server's `now()`: the
/// daemons' clocks may disagree, the database's is the one they share.
final class PostgreSQLSyncLeases: SyncLeases {
    private let uri: String
    private let password: String?
    private let connection: PostgreSQLConnection
    /// Whether this connection holds the discovery turn (a session advisory
    /// lock: taken once, held until the connection closes).
    private var holdsDiscoveryTurn = false
    /// The lease duration claims and renewals last asked for, which bounds how
    /// long a fenced writer's session may idle inside a transaction.
    private var leaseDuration: Duration?

    init(uri: String, password: String?) throws {
        self.uri = uri
        self.password = password
        connection = try StoreSession.connect(uri: uri, password: password, applicationName: "commits-mirror leases")
        try PostgreSQLMigrator.migrate(connection, location: uri)
    }

    /// A lease is a row's `lease_until`, which the server's clock passes.
    var leasesRunOut: Bool { true }

    /// Rows are keyed by the target alone: due times and policies are each release's to set.
    func follow(_ plans: [SyncTargetPlan]) throws {
        let targets = plans.map(\.target)
        guard !targets.isEmpty else { return }
        _ = try storeErrors {
            try connection.execute(
                """
                INSERT INTO sync_leases (repository, branch)
                SELECT * FROM unnest($1::text[], $2::text[])
                ON CONFLICT ((lower(repository)), branch) DO NOTHING
                """,
                [TextArray(targets.map(\.repository.description)), TextArray(targets.map(\.storedBranch))])
        }
    }

    /// First syncs are not told apart: the queue holds no sync state (each daemon's lanes bound its own).
    func claimDue(owner: String, limit: Int, firstSyncLimit: Int, duration: Duration) throws -> ClaimRound {
        guard limit > 0 else { return ClaimRound(claimed: []) }
        leaseDuration = duration
        let rows = try storeErrors {
            try connection.execute(
                """
                WITH due AS MATERIALIZED (
                    SELECT lower(repository) AS repository, branch, owner AS previous_owner FROM sync_leases
                    WHERE due_at <= now() AND (lease_until IS NULL OR lease_until <= now())
                    ORDER BY due_at, lower(repository), branch
                    LIMIT $2
                    FOR UPDATE SKIP LOCKED)
                UPDATE sync_leases l
                SET owner = $1, lease_until = now() + $3::float8 * interval '1 millisecond',
                    lease_generation = l.lease_generation + 1, pushed_at = NULL
                FROM due WHERE lower(l.repository) = due.repository AND l.branch = due.branch
                RETURNING l.repository, l.branch, l.owner, l.lease_generation, extract(epoch FROM l.lease_until),
                    due.previous_owner
                """, [owner, limit, duration.leaseMilliseconds])
        }
        return ClaimRound(claimed: Self.leases(rows))
    }

    /// Other daemons release and push: the queue is asked again after `limit`.
    func nextClaimable(within limit: Duration) -> Duration { limit }

    func markPushed(_ repositories: [RepositoryName]) throws {
        guard !repositories.isEmpty else { return }
        _ = try storeErrors {
            try connection.execute(
                """
                UPDATE sync_leases SET due_at = least(due_at, now()), pushed_at = CASE WHEN owner IS NULL THEN NULL ELSE now() END
                WHERE lower(repository) = ANY($1::text[])
                """, [TextArray(repositories.map { $0.description.lowercased() })])
        }
    }

    func takeDiscoveryTurn() throws -> Bool {
        if holdsDiscoveryTurn { return true }
        // Held by the session, so a daemon that dies or loses its connection
        // gives the turn up with it, and the next one to ask takes it.
        let granted = try storeErrors {
            try connection.execute("SELECT pg_try_advisory_lock($1)", [Self.discoveryLockKey]).bool(0, 0)
        }
        holdsDiscoveryTurn = granted == true
        return holdsDiscoveryTurn
    }

    /// pg_try_advisory_lock's key for the discovery turn: any constant no other lock uses.
    static let discoveryLockKey: Int64 = 0x636F_6D6D_6974_7304

    func heldLeases() throws -> [SyncLease] {
        Self.leases(try storeErrors { try connection.execute(Self.held) })
    }

    /// Every claim held, in `leases(_:)`'s columns (also read by `PostgreSQLReader.heldClaims`).
    static let held = """
        SELECT repository, branch, owner, lease_generation, extract(epoch FROM lease_until), NULL::text
        FROM sync_leases WHERE owner IS NOT NULL ORDER BY lower(repository), branch
        """

    /// Rows of repository, branch, owner, generation, lease end (epoch seconds) and previous owner.
    static func leases(_ rows: QueryResult) -> [SyncLease] {
        (0..<rows.count).compactMap { row in
            guard let repository = rows.string(row, 0).flatMap(RepositoryName.init(parsing:)),
                let branch = rows.string(row, 1), let owner = rows.string(row, 2)
            else { return nil }
            return SyncLease(
                target: SyncTarget(repository: repository, branch: branch.isEmpty ? nil : branch), owner: owner,
                generation: rows.int64(row, 3) ?? 0, expiresAt: Date(timeIntervalSince1970: rows.double(row, 4) ?? 0),
                takenOverFrom: rows.string(row, 5))
        }
    }

    func renew(_ lease: SyncLease, duration: Duration) throws -> SyncLease {
        leaseDuration = duration
        let rows = try storeErrors {
            try connection.execute(
                """
                UPDATE sync_leases SET lease_until = now() + $5::float8 * interval '1 millisecond'
                WHERE lower(repository) = lower($1) AND branch = $2 AND owner = $3 AND lease_generation = $4
                RETURNING extract(epoch FROM lease_until)
                """, Self.key(lease) + [duration.leaseMilliseconds])
        }
        guard rows.count == 1, let until = rows.double(0, 0) else { throw StoreError.leaseLost(lease) }
        return SyncLease(
            target: lease.target, owner: lease.owner, generation: lease.generation,
            expiresAt: Date(timeIntervalSince1970: until))
    }

    func release(_ lease: SyncLease, nextDue: Duration) throws {
        try release(lease, dueAt: "now() + $5::float8 * interval '1 millisecond'", milliseconds: nextDue.leaseMilliseconds)
    }

    /// On the grid: the first `due_at + k × interval` later than the server's `now()` (`SyncResult.nextSlot`).
    func release(_ lease: SyncLease, after results: [SyncResult], otherwise: Duration) throws {
        guard let interval = SyncResult.interval(after: results), interval.leaseMilliseconds > 0 else {
            return try release(lease, nextDue: SyncResult.dueIn(after: results) ?? otherwise)
        }
        try release(
            lease,
            dueAt: """
                due_at + greatest(floor(extract(epoch FROM now() - due_at) * 1000 / $5::float8) + 1, 1)
                    * $5::float8 * interval '1 millisecond'
                """,
            milliseconds: interval.leaseMilliseconds)
    }

    /// Gives the lease's row up, due at `dueAt` (one of the expressions above, of `$5` milliseconds),
    /// or now when a push came while it was held.
    private func release(_ lease: SyncLease, dueAt: String, milliseconds: Int64) throws {
        let rows = try storeErrors {
            try connection.execute(
                """
                UPDATE sync_leases SET owner = NULL, lease_until = NULL, pushed_at = NULL,
                    due_at = CASE WHEN pushed_at IS NULL THEN \(dueAt) ELSE now() END
                WHERE lower(repository) = lower($1) AND branch = $2 AND owner = $3 AND lease_generation = $4
                """, Self.key(lease) + [milliseconds])
        }
        guard rows.affectedRows == 1 else { throw StoreError.leaseLost(lease) }
    }

    func openFencedWriter(for lease: SyncLease) throws -> any MirrorWriter {
        let duration = leaseDuration ?? .milliseconds(max(0, Int64(lease.expiresAt.timeIntervalSinceNow * 1_000)))
        return try storeErrors {
            try PostgreSQLStore(uri: uri, password: password, claimed: (WriteFence(lease: lease), leaseDuration: duration))
        }
    }

    /// What identifies the lease's row and its holder: `$1` … `$4` of the statements above.
    private static func key(_ lease: SyncLease) -> [any PostgreSQLBindable] {
        [lease.target.repository.description, lease.target.storedBranch, lease.owner, lease.generation]
    }

    private func storeErrors<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as PostgreSQLError {
            throw PostgreSQLStoreError(error, uri: uri)
        }
    }
}

@available(*, unavailable)
extension PostgreSQLSyncLeases: Sendable {}
