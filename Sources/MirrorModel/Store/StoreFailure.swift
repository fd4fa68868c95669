/// What kind of failure a backend's error is, stated without the backend's
/// types, so that the executables can phrase advice and count metrics for
/// errors a store raises mid-command, whichever backend raised them.
public enum StoreFailure: Sendable, Equatable {
    /// The disk (or a size limit) has no room; the write in progress was rolled back.
    case full
    /// A read-only file, file system or database (a standby).
    case readOnly
    /// This user (or role) may not read or write what the command needs.
    case permissionDenied
    /// Another session held a lock past the wait; `holders` names them when the backend could tell.
    case lockTimeout(holders: String?)
    /// A statement was cancelled (by a timeout or another session); its transaction rolled back.
    case cancelled
    /// The server refuses more connections.
    case tooManyConnections
    /// The connection to the server was lost mid-command; its transaction rolled back.
    case connectionLost
    /// The store could not be reached or opened at all.
    case unavailable
    /// Any other failure of the store.
    case other
}

/// A backend's error that can say which `StoreFailure` it is.
public protocol StoreFailureReporting: Error {
    var storeFailure: StoreFailure { get }
    /// Whether the error's own text already says what to do, so an executable adds no advice to it.
    var includesRemedy: Bool { get }
}

extension StoreFailureReporting {
    public var includesRemedy: Bool { false }
}
