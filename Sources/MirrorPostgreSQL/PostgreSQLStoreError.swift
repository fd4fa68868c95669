import MirrorCore
import PostgreSQL

/// What went wrong with a PostgreSQL store, phrased for the one line a user sees.
public enum PostgreSQLStoreError: Error, Sendable, CustomStringConvertible {
    case passwordInURI
    case unreadableURI(reason: String)
    case unreadableCredential(path: String)
    case unreachable(uri: String, reason: String)
    case readOnly(uri: String)
    /// A statement waited `lock_timeout` for a lock another session holds; its transaction rolled back.
    case lockTimeout(uri: String, holders: String?)
    case failed(uri: String, PostgreSQLError)

    init(_ error: PostgreSQLError, uri: String) {
        if error.kind == .connection || error.kind == .libraryMissing {
            self = .unreachable(uri: uri, reason: error.message)
        } else if error.isReadOnlyTransaction {
            self = .readOnly(uri: uri)
        } else if error.isLockTimeout {
            self = .lockTimeout(uri: uri, holders: error.lockHolders)
        } else {
            self = .failed(uri: uri, error)
        }
    }

    public var description: String {
        switch self {
        case .passwordInURI:
            return
                "the PostgreSQL URI holds a password, which would show in process lists, logs and status; remove it and put it in ~/.pgpass (or the file PGPASSFILE names), or for commitsd in the systemd credential postgresql-password"
        case .unreadableURI(let reason):
            return "cannot read the PostgreSQL URI: \(reason); write it as postgresql://USER@HOST:PORT/DATABASE"
        case .unreadableCredential(let path):
            return "cannot read the credential \(path) as text; it must hold the database password"
        case .unreachable(let uri, let reason):
            return "cannot connect to the PostgreSQL store \(uri): \(reason)\(Self.advice(forRefusal: reason))"
        case .readOnly(let uri):
            return "the PostgreSQL store \(uri) is read-only (a standby?); write to the primary"
        case .lockTimeout(let uri, let holders):
            return
                "the PostgreSQL store \(uri) is locked: a statement waited lock_timeout (\(StoreSession.lockTimeout) unless PGOPTIONS or the URI's options say otherwise) for a lock held by another session\(holders.map { " (\($0))" } ?? "") and was rolled back, nothing half-stored; let that session finish (VACUUM FULL, REINDEX and ALTER TABLE hold such locks) or end it with pg_terminate_backend(PID), then run again"
        case .failed(let uri, let error):
            return "the PostgreSQL store \(uri) failed: \(error)"
        }
    }

    /// What to do about the refusals an operator meets setting a store up, told
    /// apart by libpq's and the server's (English) messages; anything else is
    /// left as the server said it.
    static func advice(forRefusal reason: String) -> String {
        if reason.contains("no password supplied") {
            return
                "; put the password in ~/.pgpass (or the file PGPASSFILE names) or, for commitsd, the systemd credential postgresql-password; a server on this machine may instead know you by your login name over its Unix socket (Debian's default): postgresql:///DATABASE"
        }
        if reason.contains("password authentication failed") {
            return
                "; correct the password where it comes from: the systemd credential postgresql-password, or ~/.pgpass (or the file PGPASSFILE names)"
        }
        if reason.contains("role \""), reason.contains("does not exist") {
            return "; create that role (createuser, run as the postgres user) or name an existing one in the URI"
        }
        if reason.contains("database \""), reason.contains("does not exist") {
            return "; create it (createdb --owner ROLE NAME, run as the postgres user) or name an existing one in the URI"
        }
        return ""
    }
}
