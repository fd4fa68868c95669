import MirrorCore
import PostgreSQL
import SQLite
import Testing

@testable import MirrorPostgreSQL

/// The `reason` of `store_write_failures_total` each store error stands for: a
/// fixed set, the same whichever backend refused (CommitsdStoreMetricsTests sees
/// `disk_full` and `locked` from a real commitsd).
@Suite struct StoreWriteFailureReasonTests {
    typealias Reason = MirrorMetrics.StoreWriteFailure

    @Test func sqliteStoreErrorsMapToTheirReason() {
        let error = SQLiteError(code: ResultCode(rawValue: 8), message: "attempt to write a readonly database")
        let underlying = UnderlyingError(error, message: error.message)
        let cases: [(StoreError, Reason?)] = [
            (.full(path: "/s"), .diskFull),
            (.readOnly(path: "/s", underlying: underlying), .readOnly),
            (.readOnlyDirectory(path: "/s", directory: "/"), .readOnly),
            (.permissionDenied(path: "/s", blocked: "/"), .permissionDenied),
            (.busy(path: "/s"), .locked),
            (.ioError(path: "/s", underlying: underlying), .ioError),
            (.missing(path: "/s"), .unavailable),
            (.foreignDatabase(path: "/s"), .other),
        ]
        for (error, reason) in cases { #expect(Reason(error) == reason, "\(error)") }
    }

    @Test func postgreSQLStoreErrorsMapToTheirReason() {
        func stated(_ sqlState: String?, kind: PostgreSQLError.Kind = .statement) -> Reason {
            PostgreSQLStoreError(PostgreSQLError(kind: kind, sqlState: sqlState, message: "m"), uri: "postgresql://h/d")
                .storeWriteFailure
        }
        #expect(stated("53100") == .diskFull)
        #expect(stated("25006") == .readOnly)
        #expect(stated("55P03") == .locked)
        #expect(stated("42501") == .permissionDenied)
        #expect(stated(nil, kind: .connection) == .unavailable)
        #expect(stated("57P01") == .unavailable)
        #expect(stated("23505") == .other)
        #expect(PostgreSQLStoreError.passwordInURI.storeWriteFailure == .other)
    }
}
