import MirrorBookkeeping
import MirrorCore
import PostgreSQL

extension SyncStateRows {
    /// One repository's branches (by name), or every repository's (by name, then branch), names in byte order.
    static func all(repositoryID: Int64?, on connection: PostgreSQLConnection) throws -> [SyncState] {
        let ordered =
            repositoryID == nil
            ? PortableSQL(query + " ORDER BY lower(r.full_name COLLATE \"C\"), s.branch COLLATE \"C\"")
            : PortableSQL(query + " WHERE s.repository_id = CAST(? AS BIGINT) ORDER BY s.branch COLLATE \"C\"")
        return try connection.rows(ordered, repositoryID.map { [$0] } ?? [], state(from:))
    }
}
