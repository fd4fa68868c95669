import SQLite

/// How the message-search tests ask SQLite's trigram index itself how it folds:
/// an FTS5 table `t` (column `x`, the store's tokenizer, `case_sensitive 0`)
/// holding one row per scalar of `values`, its rowid the scalar's value, between
/// two control characters so that each row is exactly one trigram.
enum TrigramScalarTable {
    /// Creates the table in `db`; returns the scalars it holds (surrogates skipped).
    @discardableResult
    static func create(in db: Connection, values: ClosedRange<UInt32>) throws -> [Unicode.Scalar] {
        try db.execute("CREATE VIRTUAL TABLE t USING fts5 (x, tokenize = 'trigram case_sensitive 0')")
        let scalars = values.compactMap(Unicode.Scalar.init)
        try db.transaction {
            let insert = try db.prepare("INSERT INTO t (rowid, x) VALUES (?, ?)")
            for scalar in scalars { try insert.bind([Int(scalar.value), "\u{1}\(scalar)\u{2}"]).run() }
        }
        return scalars
    }
}
