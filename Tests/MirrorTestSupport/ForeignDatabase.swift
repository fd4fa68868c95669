import SQLite

/// Another program's SQLite database, in the rollback journal most programs leave
/// theirs in: what a store must refuse without touching, not even to switch it to WAL.
public enum ForeignDatabase {
    /// Creates the database at `path` holding what `script` writes.
    public static func create(at path: String, _ script: String) throws {
        let other = try Connection(path: path)
        let mode = try other.pragma("journal_mode = DELETE")
        guard mode == "delete" else { throw TestServerError("\(path) stayed in journal mode \(mode), not delete") }
        try other.executeScript(script)
        try other.close()
    }
}
