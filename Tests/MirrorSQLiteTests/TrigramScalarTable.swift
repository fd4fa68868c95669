import MirrorTestSupport
import SQLite

/// How the message-search tests ask SQLite's trigram index itself how it folds:
/// an FTS5 table `t` (column `x`, the store's tokenizer, `case_sensitive 0`)
/// holding one row per scalar of `values`, its rowid the scalar's value, between
/// two control characters so that each row is exactly one trigram.
struct TrigramScalarTable {
    /// Holds the database, which goes with it.
    let directory: TemporaryDirectory
    let db: Connection
    /// The scalars the table holds (surrogates skipped).
    let scalars: [Unicode.Scalar]

    /// Creates the table in a fresh database.
    init(values: ClosedRange<UInt32>) throws {
        directory = try TemporaryDirectory()
        let db = try Connection(path: directory.path("trigrams.sqlite"))
        try db.execute("CREATE VIRTUAL TABLE t USING fts5 (x, tokenize = 'trigram case_sensitive 0')")
        let scalars = values.compactMap(Unicode.Scalar.init)
        try db.transaction {
            let insert = try db.prepare("INSERT INTO t (rowid, x) VALUES (?, ?)")
            for scalar in scalars { try insert.bind([Int(scalar.value), "\u{1}\(scalar)\u{2}"]).run() }
        }
        self.db = db
        self.scalars = scalars
    }
}
