import CPostgreSQL

/// The rows of one statement, in text format. Owns the `PGresult` and clears it
/// when released. Not `Sendable`: libpq results belong to the thread that made them.
public final class QueryResult {
    let rawResult: OpaquePointer

    init(owning rawResult: OpaquePointer) {
        self.rawResult = rawResult
    }

    deinit {
        cpq_clear(rawResult)
    }

    public var count: Int { Int(cpq_ntuples(rawResult)) }
    public var columnCount: Int { Int(cpq_nfields(rawResult)) }

    /// How many rows an INSERT, UPDATE or DELETE touched (0 when not such a statement).
    public var affectedRows: Int { Int(String(cString: cpq_cmd_tuples(rawResult))) ?? 0 }

    public func columnName(_ column: Int) -> String {
        String(cString: cpq_fname(rawResult, Int32(column)))
    }

    public func isNull(_ row: Int, _ column: Int) -> Bool {
        cpq_getisnull(rawResult, Int32(row), Int32(column)) != 0
    }

    /// The value as text; `nil` for NULL.
    public func string(_ row: Int, _ column: Int) -> String? {
        guard !isNull(row, column), let value = cpq_getvalue(rawResult, Int32(row), Int32(column)) else {
            return nil
        }
        return String(cString: value)
    }

    public func int64(_ row: Int, _ column: Int) -> Int64? {
        string(row, column).flatMap { Int64($0) }
    }

    public func int(_ row: Int, _ column: Int) -> Int? {
        string(row, column).flatMap { Int($0) }
    }

    /// A `boolean` column (`t`/`f`).
    public func bool(_ row: Int, _ column: Int) -> Bool? {
        string(row, column).map { $0 == "t" }
    }

    public func double(_ row: Int, _ column: Int) -> Double? {
        string(row, column).flatMap { Double($0) }
    }

    /// Every row, each as its columns' text.
    public var rows: [[String?]] {
        (0..<count).map { row in (0..<columnCount).map { string(row, $0) } }
    }
}
