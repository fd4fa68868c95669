import MirrorCore
import PostgreSQL

// A commit's changed paths on a PostgreSQL store: MirrorReader+Changes.swift in
// PostgreSQL's SQL, bytea read as hex digits (whatever `bytea_output` says).

extension PostgreSQLReader {
    /// What a stored commit changed against each parent, by parent then path
    /// bytes; nil when its changes are not stored.
    func changes(commitID: Int64) throws -> [FileChange]? {
        // One row with no change for a commit known to have changed nothing, none for one not known.
        let rows = try connection.execute(
            """
            SELECT cc.parent, encode(p.path, 'hex'), cc.old_mode, encode(cc.old_object, 'hex'),
                cc.new_mode, encode(cc.new_object, 'hex')
            FROM commit_changes_read r
            LEFT JOIN (commit_changes cc JOIN paths p ON p.id = cc.path_id) ON cc.commit_id = r.commit_id
            WHERE r.commit_id = $1::bigint ORDER BY cc.parent, p.path
            """, [commitID])
        guard rows.count > 0 else { return nil }
        return (0..<rows.count).compactMap { row in
            guard let parent = rows.int(row, 0) else { return nil }
            return FileChange(
                path: FileChange.bytes(hexDigits: rows.string(row, 1) ?? ""), parent: parent,
                old: Self.side(mode: rows.int64(row, 2), object: rows.string(row, 3)),
                new: Self.side(mode: rows.int64(row, 4), object: rows.string(row, 5)))
        }
    }

    private static func side(mode: Int64?, object: String?) -> FileChange.Side? {
        guard let mode else { return nil }
        return FileChange.Side(mode: UInt32(truncatingIfNeeded: mode), objectID: object ?? "")
    }
}
