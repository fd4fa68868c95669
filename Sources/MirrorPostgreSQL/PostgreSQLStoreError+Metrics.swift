import MirrorBookkeeping
import MirrorCore
import MirrorModel
import PostgreSQL

extension PostgreSQLStoreError: StoreFailureReporting {
    public var storeFailure: StoreFailure {
        switch self {
        case .readOnly: return .readOnly
        case .lockTimeout(_, let holders): return .lockTimeout(holders: holders)
        case .unreachable: return .unavailable
        case .failed(_, let error): return error.storeFailure
        case .passwordInURI, .unreadableURI, .unreadableCredential: return .other
        }
    }

    /// Its description is phrased for the user already, advice included.
    public var includesRemedy: Bool { true }

    /// The reason of `store_write_failures_total` this error stands for (`MirrorMetrics.StoreWriteFailure`).
    public var storeWriteFailure: MirrorMetrics.StoreWriteFailure { MirrorMetrics.StoreWriteFailure(storeFailure) }
}

// The wrapper knows no store, so the store's backend says what its errors mean to a store.
extension PostgreSQLError: StoreFailureReporting {
    public var storeFailure: StoreFailure {
        if isCancelled { return .cancelled }
        if isLockTimeout { return .lockTimeout(holders: lockHolders) }
        if isDiskFull { return .full }
        if isTooManyConnections { return .tooManyConnections }
        if isConnectionLost { return .connectionLost }
        if isReadOnlyTransaction { return .readOnly }
        // SQLSTATE 42501, insufficient_privilege: the role may not write a table.
        if sqlState == "42501" { return .permissionDenied }
        return .other
    }
}
