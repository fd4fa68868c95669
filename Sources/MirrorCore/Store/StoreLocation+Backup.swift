import Foundation

// Checked copies of a whole store, whichever backend holds it: `commitsctl
// backup`, and the copy `prune` and `repos remove --purge` make before they
// delete anything. A copy is always a new SQLite file, a complete store of its
// own (`--db` at it to query it, or `copy-store` it back).

extension StoreLocation {
    /// Copies the store into the new SQLite file `destination` from one
    /// consistent snapshot while writers go on; the copy is checked
    /// (`PRAGMA quick_check`) before it gets its name, and nothing is ever
    /// overwritten. A SQLite file by SQLite's online backup; a database by
    /// `StoreTransfer` (what `copy-store` does) from one REPEATABLE READ snapshot.
    /// The copy being a SQLite file, the SQLite driver writes it.
    public func backup(to destination: String) throws -> StoreBackup {
        try StoreDrivers.sqlite().backup(of: self, to: destination)
    }

    /// The copy made before an explicit deletion (`operation`: "prune",
    /// "purge"), named for the store and the time, so that the user's message
    /// can say where it went.
    public func safetyCopy(before operation: String, at date: Date = Date()) throws -> StoreBackup {
        try backup(to: safetyCopyPath(before: operation, at: date))
    }

    /// Beside a SQLite file: `<store>.backup-<operation>-<UTC time>`. A database
    /// has no "beside": the copy goes into the current directory, as
    /// `<database>.backup-<operation>-<UTC time>.sqlite`, where the user who
    /// asked for the deletion runs it and reads where it went.
    public func safetyCopyPath(before operation: String, at date: Date) -> String {
        let stamp = ISO8601Timestamp.format(date).filter { $0 != "-" && $0 != ":" }
        switch self {
        case .sqliteFile(let path):
            return "\(path).backup-\(operation)-\(stamp)"
        case .postgreSQL(let uri):
            let database = (try? StoreDrivers.postgreSQL().databaseName(address: uri)) ?? nil
            let stem = Self.fileNameStem(database ?? "commits-mirror")
            let directory = FileManager.default.currentDirectoryPath
            return "\(directory == "/" ? "" : directory)/\(stem).backup-\(operation)-\(stamp).sqlite"
        }
    }

    /// A database name as part of a file name: no directory separators, no leading dot.
    static func fileNameStem(_ name: String) -> String {
        let safe = String(
            name.unicodeScalars.map { scalar in
                CharacterSet.alphanumerics.contains(scalar) || "-_.".unicodeScalars.contains(scalar) ? Character(scalar) : "_"
            })
        guard !safe.isEmpty else { return "commits-mirror" }
        return safe.hasPrefix(".") ? "_" + safe.dropFirst() : safe
    }
}
