import CoreMetrics

extension MirrorMetrics {
    /// Why a sync could not write the store (the `reason` label of `store_write_failures_total`):
    /// a small fixed set, whatever the backend, so an alert and a dashboard name each one.
    public enum StoreWriteFailure: String, Sendable, CaseIterable {
        /// The disk (or a size limit) has no room left.
        case diskFull = "disk_full"
        /// A read-only file, directory, file system or database (a standby, `default_transaction_read_only`).
        case readOnly = "read_only"
        /// This user may not open, create or write the store.
        case permissionDenied = "permission_denied"
        /// Another session held the store's lock past the wait (SQLite's busy timeout, PostgreSQL's `lock_timeout`).
        case locked
        /// The operating system failed a read or write.
        case ioError = "io_error"
        /// The store could not be opened or reached at all (a file gone, a database server down).
        case unavailable
        /// Any other error of the store.
        case other

        /// The reason a SQLite store's error stands for; `nil` for a lost lease, which is no fault of the store.
        public init?(_ error: StoreError) {
            switch error {
            case .full: self = .diskFull
            case .readOnly, .readOnlyDirectory, .sideFilesMissing, .readOnlyNeedsMigration: self = .readOnly
            case .permissionDenied, .cannotCreateDirectory: self = .permissionDenied
            case .busy: self = .locked
            case .ioError: self = .ioError
            case .missing, .cannotOpen: self = .unavailable
            case .leaseLost: return nil
            default: self = .other
            }
        }

        /// The reason a failure a backend reported mid-command stands for.
        public init(_ failure: StoreFailure) {
            switch failure {
            case .full: self = .diskFull
            case .readOnly: self = .readOnly
            case .permissionDenied: self = .permissionDenied
            case .lockTimeout: self = .locked
            case .unavailable, .connectionLost, .tooManyConnections: self = .unavailable
            case .cancelled, .other: self = .other
            }
        }
    }

    public static let storeWriteFailuresName = prefix + "store_write_failures_total"
    public static let messageIndexLagName = prefix + "message_index_lag_commits"

    private func storeWriteFailures(_ reason: StoreWriteFailure) -> Counter {
        Counter(label: Self.storeWriteFailuresName, dimensions: [("reason", reason.rawValue)], factory: factory)
    }

    /// Every reason's counter at zero, at start-up: `increase()` over a series that
    /// first appears at 1 sees no increase, so the first failure would alert no one.
    public func prepareStoreWriteFailures() {
        for reason in StoreWriteFailure.allCases { _ = storeWriteFailures(reason) }
    }

    /// One sync that failed on an error of the store.
    public func recordStoreWriteFailure(_ reason: StoreWriteFailure) {
        storeWriteFailures(reason).increment()
    }

    /// How many stored commits the message index does not cover yet (`MirrorReading.messageIndexLag`).
    public func recordMessageIndexLag(_ store: any MirrorReading) throws {
        Gauge(label: Self.messageIndexLagName, factory: factory).record(try store.messageIndexLag())
    }
}
