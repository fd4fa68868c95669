import MirrorCore
import PostgreSQL

extension PostgreSQLStoreError {
    /// The reason of `store_write_failures_total` this error stands for (`MirrorMetrics.StoreWriteFailure`).
    public var storeWriteFailure: MirrorMetrics.StoreWriteFailure {
        switch self {
        case .readOnly: return .readOnly
        case .lockTimeout: return .locked
        case .unreachable: return .unavailable
        case .failed(_, let error) where error.isDiskFull: return .diskFull
        case .failed(_, let error) where error.isLockTimeout: return .locked
        case .failed(_, let error) where error.isConnectionLost || error.isTooManyConnections: return .unavailable
        // SQLSTATE 42501, insufficient_privilege: the role may not write a table.
        case .failed(_, let error) where error.sqlState == "42501": return .permissionDenied
        case .passwordInURI, .unreadableURI, .unreadableCredential, .failed: return .other
        }
    }
}
