import Foundation
import MirrorCore
import PostgreSQL

/// A repository claimed by a one-shot command (`commitsctl sync`, `import`,
/// `repos remove`) on a PostgreSQL store: the repository's row of the queue the
/// daemons share (`sync_leases`), claimed the way a daemon claims it, so that a
/// command and a daemon never sync one repository at once, and `status` names
/// the command as its holder.
///
/// The lease is renewed by a thread of its own every third of `duration` while
/// the command runs, and given up on `release()` (its due time unchanged). The
/// writer a claimed sync gets (`openWriter`) is fenced like a daemon's: a
/// command paused past its lease (Ctrl-Z, SIGSTOP) whose repository a daemon
/// took over fails its next write with `StoreError.leaseLost`, having written
/// nothing. Unlike a daemon's, it may still build a first history's indexes at
/// the end (`WriteFence.allowsBulkLoad`), as a command did before it claimed.
final class QueueClaim: RepositoryClaim {
    /// A command's lease, renewed every third of it.
    static let duration: Duration = .seconds(60)

    private let uri: String
    private let password: String?
    private let renewal: LeaseRenewal

    private init(uri: String, password: String?, renewal: LeaseRenewal) {
        self.uri = uri
        self.password = password
        self.renewal = renewal
    }

    /// Claims `repository` for `holder` (named with its host and process id), or
    /// throws `RepositoryLockError.busy` naming who holds it and until when.
    static func acquire(
        uri: String, password: String?, repository: RepositoryName, holder: String, duration: Duration = duration
    ) throws -> QueueClaim {
        let owner = "\(holder) on \(ProcessInfo.processInfo.hostName) (pid \(getpid()))"
        let connection = try StoreSession.connect(uri: uri, password: password, applicationName: "commits-mirror \(holder)")
        try PostgreSQLMigrator.migrate(connection, location: uri)
        // Commands also exclude one another by a session advisory lock, which the
        // server drops with the session: a row a command holds while this lock is
        // free was left by one that died (killed, or its connection cut), and is
        // taken at once instead of after its lease.
        let key = "commits-mirror repository \(repository)".lowercased()
        guard try connection.execute("SELECT pg_try_advisory_lock(hashtextextended($1, 0))", [key]).bool(0, 0) == true else {
            throw RepositoryLockError.busy(repository: repository, holder: try currentHolder(of: repository, connection))
        }
        try connection.execute(
            """
            INSERT INTO sync_leases (repository, branch) VALUES ($1, '')
            ON CONFLICT ((lower(repository)), branch) DO NOTHING
            """, [repository.description])
        let claimed = PostgreSQLSyncLeases.leases(
            try connection.execute(
                """
                UPDATE sync_leases SET owner = $2, lease_until = now() + $3::float8 * interval '1 millisecond',
                    lease_generation = lease_generation + 1
                WHERE lower(repository) = lower($1) AND branch = ''
                    AND (lease_until IS NULL OR lease_until <= now() OR owner ~ $4)
                RETURNING repository, branch, owner, lease_generation, extract(epoch FROM lease_until), NULL::text
                """, [repository.description, owner, duration.leaseMilliseconds, commandOwnerPattern]))
        guard let lease = claimed.first else {
            throw RepositoryLockError.busy(repository: repository, holder: try currentHolder(of: repository, connection))
        }
        return QueueClaim(
            uri: uri, password: password, renewal: LeaseRenewal(connection: connection, lease: lease, key: key, duration: duration))
    }

    /// How a command's owner name ends (`… (pid 123)`), which tells its rows from a daemon's.
    static let commandOwnerPattern = " \\(pid [0-9]+\\)$"

    /// Who holds `repository`'s row and until when, for the busy message.
    private static func currentHolder(of repository: RepositoryName, _ connection: PostgreSQLConnection) throws -> String? {
        let holders = PostgreSQLSyncLeases.leases(
            try connection.execute(
                """
                SELECT repository, branch, owner, lease_generation, extract(epoch FROM lease_until), NULL::text
                FROM sync_leases WHERE lower(repository) = lower($1) AND branch = '' AND owner IS NOT NULL
                """, [repository.description]))
        return holders.first.map { "\($0.owner), lease until \(ISO8601Timestamp.format($0.expiresAt))" }
    }

    func openWriter() throws -> (any MirrorWriter)? {
        try PostgreSQLStore(
            uri: uri, password: password,
            claimed: (WriteFence(lease: renewal.lease, holder: .command), leaseDuration: renewal.duration))
    }

    func release() { renewal.stop() }

    deinit { renewal.stop() }
}

/// The thread that renews a command's lease every third of it, on the claim's
/// connection, until stopped; stopping gives the claim up. A renewal refused
/// (the lease ran out and another took it) ends the renewals: the fence
/// refuses the command's writes from then on.
private final class LeaseRenewal: @unchecked Sendable {
    private let condition = NSCondition()
    private let connection: PostgreSQLConnection
    private let current: SyncLease
    let duration: Duration
    private var stopped = false

    private let key: String

    init(connection: PostgreSQLConnection, lease: SyncLease, key: String, duration: Duration) {
        self.connection = connection
        self.key = key
        self.current = lease
        self.duration = duration
        let thread = Thread { [self] in renewUntilStopped() }
        thread.name = "commits-mirror lease renewal"
        thread.start()
    }

    var lease: SyncLease { current }

    private func renewUntilStopped() {
        condition.lock()
        defer { condition.unlock() }
        while !stopped {
            _ = condition.wait(until: Date() + Double(duration.leaseMilliseconds) / 3_000)
            guard !stopped else { return }
            let rows = try? connection.execute(
                """
                UPDATE sync_leases SET lease_until = now() + $4::float8 * interval '1 millisecond'
                WHERE lower(repository) = lower($1) AND branch = '' AND owner = $2 AND lease_generation = $3
                """, [current.target.repository.description, current.owner, current.generation, duration.leaseMilliseconds])
            if rows?.affectedRows != 1 { return }
        }
    }

    /// Gives the claim up (once): its due time is left as it was.
    func stop() {
        condition.lock()
        defer { condition.unlock() }
        guard !stopped else { return }
        stopped = true
        condition.signal()
        _ = try? connection.execute(
            """
            UPDATE sync_leases SET owner = NULL, lease_until = NULL
            WHERE lower(repository) = lower($1) AND branch = '' AND owner = $2 AND lease_generation = $3
            """, [current.target.repository.description, current.owner, current.generation])
        // Unlocked before the connection closes: the server drops a closed session's
        // locks only once its backend has exited, so the next claim of the same
        // repository (the next branch of one `sync`) could still find it held.
        _ = try? connection.execute("SELECT pg_advisory_unlock(hashtextextended($1, 0))", [key])
        connection.close()
    }
}
