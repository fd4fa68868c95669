import SQLite

/// What the message index covers (schema version 11), asked the same way by
/// the writer, the reader's searches and `check`.
enum MessageIndexCoverage {
    /// The last commit id `commits_fts` covers, as a subquery read in its statement's own snapshot.
    static let watermark = "(SELECT through_id FROM message_index_coverage)"

    /// How many stored commits the index does not cover yet.
    static func lag(in db: Connection) throws -> Int {
        try db.scalarInt("SELECT count(*) FROM commits WHERE id > \(watermark)") ?? 0
    }
}

extension MirrorReader {
    /// How many stored commits the message index does not cover yet: a count of
    /// the rows past the watermark, which a sync's catch-up keeps short.
    public func messageIndexLag() throws -> Int {
        try MessageIndexCoverage.lag(in: db)
    }
}
