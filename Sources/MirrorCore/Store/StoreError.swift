import SQLite

/// Store failures with messages that say what to do.
public enum StoreError: Error, Sendable, CustomStringConvertible {
    case cannotCreateDirectory(String, reason: String)
    case missing(path: String)
    case notAStore(path: String, underlying: SQLiteError)
    case cannotOpen(path: String, underlying: SQLiteError)
    case newerSchema(path: String, found: Int, known: Int)
    case readOnlyNeedsMigration(path: String)
    case busy(path: String)
    case sqlite(SQLiteError)

    public var description: String {
        switch self {
        case .cannotCreateDirectory(let directory, let reason):
            return "cannot create the store directory \(directory): \(reason); choose another path with --db or $COMMITS_DB"
        case .missing(let path):
            return "no store at \(path); run `commitsctl sync OWNER/REPO` first, or point --db / $COMMITS_DB at an existing store"
        case .notAStore(let path, _):
            return "\(path) is not a commits-mirror store (not an SQLite database); point --db at the right file"
        case .cannotOpen(let path, let error):
            return "cannot open the store \(path): \(error.message); check the path and its permissions"
        case .newerSchema(let path, let found, let known):
            return "the store \(path) has schema version \(found), newer than this program knows (\(known)); upgrade commits-mirror. The store was left untouched"
        case .readOnlyNeedsMigration(let path):
            return "the store \(path) needs a schema upgrade; run `commitsctl sync` (or commitsd) once to upgrade it"
        case .busy(let path):
            return "the store \(path) is locked by another writer beyond the busy timeout; retry shortly"
        case .sqlite(let error):
            return "store error: \(error)"
        }
    }
}
