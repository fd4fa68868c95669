import MirrorBookkeeping
import MirrorCore
import SQLite

/// The reader's sync states, in SQLite's order (the rest of what the reader and
/// the writer both read is MirrorBookkeeping's `RepositoryRows`).
enum StoreLookups {
    static func syncStates(repositoryID: Int64? = nil, in db: Connection) throws -> [SyncState] {
        guard let repositoryID else {
            return try db.rows(allSyncStates, [], SyncStateRows.state(from:))
        }
        return try db.rows(repositorySyncStates, [repositoryID], SyncStateRows.state(from:))
    }

    private static let allSyncStates = PortableSQL(SyncStateRows.query + " ORDER BY r.full_name, s.branch")
    private static let repositorySyncStates = PortableSQL(
        SyncStateRows.query + " WHERE s.repository_id = ? ORDER BY s.branch")
}
