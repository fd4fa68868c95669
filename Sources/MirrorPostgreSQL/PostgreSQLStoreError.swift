import MirrorCore
import PostgreSQL

/// What went wrong with a PostgreSQL store, phrased for the one line a user sees.
public enum PostgreSQLStoreError: Error, Sendable, CustomStringConvertible {
    case passwordInURI
    case unreadableURI(reason: String)
    case unreadableCredential(path: String)
    case unreachable(uri: String, reason: String)
    case readOnly(uri: String)
    case failed(uri: String, PostgreSQLError)

    init(_ error: PostgreSQLError, uri: String) {
        if error.kind == .connection || error.kind == .libraryMissing {
            self = .unreachable(uri: uri, reason: error.message)
        } else if error.isReadOnlyTransaction {
            self = .readOnly(uri: uri)
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
            return "cannot connect to the PostgreSQL store \(uri): \(reason)"
        case .readOnly(let uri):
            return "the PostgreSQL store \(uri) is read-only (a standby?); write to the primary"
        case .failed(let uri, let error):
            return "the PostgreSQL store \(uri) failed: \(error)"
        }
    }
}
