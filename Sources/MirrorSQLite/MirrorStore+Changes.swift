import MirrorCore
import SQLite

extension MirrorStore {
    /// Paths kept in the writer's cache of ids before it starts over: far more
    /// than the files of a large repository, and a few MB at most.
    static let pathCacheLimit = 200_000

    /// Stores the changes of each commit read with them, unless its changes are
    /// stored already (a history read again over git keeps what it holds).
    /// Call inside a transaction, after the commits are stored.
    func storeChanges(of commits: [Commit]) throws {
        let lookup = try db.cachedStatement("SELECT id FROM commits WHERE sha = ?")
        let markRead = try db.cachedStatement("INSERT OR IGNORE INTO commit_changes_read (commit_id) VALUES (?)")
        let insert = try db.cachedStatement(
            """
            INSERT INTO commit_changes (commit_id, parent, path_id, old_mode, old_object, new_mode, new_object)
            VALUES (?, ?, ?, ?, ?, ?, ?)
            """)
        for commit in commits {
            guard let changes = commit.changes else { continue }
            guard let commitID = try lookup.bind([commit.sha]).first({ $0.int64(0) }) else {
                throw StoreError.sqliteError("commit \(commit.sha) vanished before its changes were stored")
            }
            try markRead.bind([commitID]).run()
            guard db.changes == 1 else { continue }
            for change in changes {
                try insert.bind([
                    commitID, change.parent, try pathID(change.path),
                    change.old.map { Int64($0.mode) }, change.old.map { SQLiteValue.blob($0.objectIDBytes) },
                    change.new.map { Int64($0.mode) }, change.new.map { SQLiteValue.blob($0.objectIDBytes) },
                ]).run()
            }
        }
    }

    /// The id of `path` in `paths`, stored now if it is new.
    private func pathID(_ path: [UInt8]) throws -> Int64 {
        if let id = pathCache[path] { return id }
        let upsert = try db.cachedStatement(
            "INSERT INTO paths (path) VALUES (?) ON CONFLICT (path) DO UPDATE SET path = excluded.path RETURNING id")
        guard let id = try upsert.bind([SQLiteValue.blob(path)]).first({ $0.int64(0) }) else {
            throw StoreError.sqliteError("path upsert returned no row")
        }
        if pathCache.count >= Self.pathCacheLimit { pathCache.removeAll(keepingCapacity: true) }
        pathCache[path] = id
        return id
    }
}
