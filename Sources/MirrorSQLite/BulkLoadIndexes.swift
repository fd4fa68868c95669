import MirrorCore
import SQLite

/// A load into an empty store (or one it will at least double, by
/// `BatchLimits.makeBulkLoad`) builds the secondary indexes no statement of a
/// sync reads once, at the end, instead of updating them row by row: the same
/// policy as the PostgreSQL store's.
///
/// Updated row by row, these indexes cost about a fifth of a first sync over
/// git, since a history's people and dates arrive in no order a B-tree likes;
/// built afterwards, all of them take a small part of that (docs/MEASURED-REASONS.md,
/// "Measured reasons: index builds after a bulk load").
///
/// The keys, the unique `sha` and every index a sync statement looks up by stay,
/// so a page is deduplicated and joined exactly as always. While they are away,
/// readers get the same answers from other plans (`QueryPlan.namesIndexes`).
/// Whatever ends the load (success, an error, a kill) they come back: at the end
/// of `MirrorStore.withBatches`, and when any writer opens the store and finds one
/// missing.
enum BulkLoadIndexes {
    struct Index {
        let name: String
        let definition: String
    }

    /// Exactly as the migrations left them (`BulkLoadIndexesContractTests` compares
    /// `sqlite_master` before a load and after it). A later migration that
    /// changes one of them changes it here too, and drops it `IF EXISTS`: a
    /// store whose load was cut short is upgraded before its indexes come back.
    static let deferred: [Index] = [
        Index(name: "commits_committer_date", definition: "ON commits (committer_date)"),
        Index(name: "commits_author_date", definition: "ON commits (author_date)"),
        Index(name: "commits_author_id", definition: "ON commits (author_id, committer_date)"),
        Index(name: "commits_committer_id", definition: "ON commits (committer_id, committer_date)"),
        Index(name: "commit_coauthors_author_id", definition: "ON commit_coauthors (author_id, commit_id)"),
    ]

    /// In a transaction of its own: when the load is worth it, drops the
    /// deferred indexes and says so. When another writer holds the store, the
    /// load goes ahead with the indexes in place: this only ever changes speed.
    static func dropIfWorthRebuilding(_ limits: BatchLimits, _ db: Connection) throws -> Bool {
        do {
            return try db.transaction(.immediate) {
                // Counted only as far as the decision needs.
                let stored =
                    try db.scalarInt(
                        "SELECT count(*) FROM (SELECT 1 FROM commits LIMIT ?)", [(limits.expectedCommits ?? 0) + 1]) ?? 0
                guard limits.makeBulkLoad(intoStoreHolding: stored) else { return false }
                for index in deferred { try db.execute("DROP INDEX IF EXISTS \(index.name)") }
                return true
            }
        } catch let error as SQLiteError where ResultCode.SQLITE_BUSY ~= error.code {
            return false
        }
    }

    /// Builds whichever deferred index is missing, in one transaction (writers
    /// wait for it; readers do not). Two writers ending their loads together
    /// take turns, and the second finds them built.
    static func restore(_ db: Connection) throws {
        try db.transaction(.immediate) {
            for index in deferred {
                try db.execute("CREATE INDEX IF NOT EXISTS \(index.name) \(index.definition)")
            }
        }
    }

    /// Whether any of them is away: a load under way, or one cut short before it
    /// rebuilt them (one look at the schema SQLite holds in memory).
    static func anyMissing(_ db: Connection) throws -> Bool {
        let names = deferred.map { _ in "?" }.joined(separator: ", ")
        let present = try db.scalarInt(
            "SELECT count(*) FROM sqlite_master WHERE type = 'index' AND name IN (\(names))", deferred.map(\.name))
        return present != deferred.count
    }
}
