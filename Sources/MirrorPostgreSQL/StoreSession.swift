import MirrorCore
import PostgreSQL

/// How every connection of the PostgreSQL store starts its session: no
/// statement waits for ever on another session's lock, no session of ours keeps
/// its locks for ever from inside a transaction its client no longer drives,
/// and a peer that vanished from the network is noticed within seconds.
enum StoreSession {
    /// Longest a statement waits for a lock another session holds (an operator's
    /// `VACUUM FULL`, `REINDEX` or `ALTER TABLE`, or a session left idle inside
    /// one): past it the statement fails and its transaction rolls back whole.
    /// `PGOPTIONS` or the URI's `options` (`-c lock_timeout=…`) change it.
    static let lockTimeout = "30s"

    /// Longest a session of ours may sit inside a transaction with its client
    /// silent (a process stopped or hung, a host paused) before the server ends
    /// it, rolling the transaction back and freeing its locks. Our transactions
    /// run statement after statement and wait on the network for at most a page
    /// fetched ahead, so only a stalled client idles this long inside one.
    static let idleInTransactionTimeout: Duration = .seconds(30)

    /// The bound for the writer of a claimed sync under a lease of `duration`:
    /// half the lease, so that the server has freed what the writer held (the
    /// lease's row, the claimed-batch lock) by the time the lease runs out and
    /// another daemon may take it over. A shared store's batch is one page or
    /// one chunk of a git history, written without waiting on the network.
    static func idleInTransactionTimeout(forLease duration: Duration) -> Duration {
        .milliseconds(min(max(duration.leaseMilliseconds / 2, 1_000), idleInTransactionTimeout.leaseMilliseconds))
    }

    /// Connects, the session bounded as above; `idleInTransaction` `nil` only
    /// for a read-only snapshot, which legitimately waits between its rows (a
    /// copy's source writing the destination, a query's pager) and holds no
    /// lock a writer waits for.
    static func connect(
        uri: String, password: String?, applicationName: String,
        idleInTransaction: Duration? = idleInTransactionTimeout
    ) throws -> PostgreSQLConnection {
        var settings: [(name: String, value: String)] = [
            ("lock_timeout", lockTimeout),
            // The server ends a session whose host stopped answering, which frees the
            // session locks it held (a daemon's discovery turn, a command's claim).
            ("tcp_keepalives_idle", "10"), ("tcp_keepalives_interval", "5"), ("tcp_keepalives_count", "3"),
        ]
        if let idleInTransaction {
            settings.append(("idle_in_transaction_session_timeout", "\(idleInTransaction.leaseMilliseconds)ms"))
        }
        return try PostgreSQLConnection(uri: uri, password: password, applicationName: applicationName, settings: settings)
    }
}
