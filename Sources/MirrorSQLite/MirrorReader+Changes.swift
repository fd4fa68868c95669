import MirrorBookkeeping
import MirrorCore
import SQLite

extension MirrorReader {
    /// What a stored commit changed against each parent, by parent then path
    /// bytes; nil when its changes are not stored.
    func changes(commitID: Int64) throws -> [FileChange]? {
        guard try db.scalarInt("SELECT count(*) FROM commit_changes_read WHERE commit_id = ?", [commitID]) == 1 else {
            return nil
        }
        return try db.prepare(
            """
            SELECT cc.parent, p.path, cc.old_mode, cc.old_object, cc.new_mode, cc.new_object
            FROM commit_changes cc JOIN paths p ON p.id = cc.path_id
            WHERE cc.commit_id = ? ORDER BY cc.parent, p.path
            """
        ).bind([commitID]).map { row in
            FileChange(
                path: Self.bytes(row.value(1)), parent: row.int(0),
                old: Self.side(mode: row.value(2), object: row.value(3)), new: Self.side(mode: row.value(4), object: row.value(5)))
        }
    }

    private static func bytes(_ value: SQLiteValue) -> [UInt8] {
        if case .blob(let bytes) = value { return bytes }
        return []
    }

    private static func side(mode: SQLiteValue, object: SQLiteValue) -> FileChange.Side? {
        guard case .integer(let mode) = mode else { return nil }
        return FileChange.Side(mode: UInt32(truncatingIfNeeded: mode), objectIDBytes: bytes(object))
    }
}

extension MirrorReader {
    public func forEachStoredPath(_ body: (_ id: Int64, _ path: [UInt8]) throws -> Void) throws {
        try db.prepare("SELECT id, path FROM paths").forEachRow { try body($0.int64(0), Self.bytes($0.value(1))) }
    }

    public func parentsChanging(pathIDs: [Int64]) throws -> [Int64: Set<Int>] {
        guard !pathIDs.isEmpty else { return [:] }
        let list = Self.idList(pathIDs)
        var parents: [Int64: Set<Int>] = [:]
        try db.prepare("SELECT commit_id, parent FROM commit_changes WHERE path_id IN (\(list.sql))").bind(list.arguments)
            .forEachRow { parents[$0.int64(0), default: []].insert($0.int(1)) }
        return parents
    }

    public func historyGraph(repositoryID: Int64, branches: BranchSelection?) throws -> HistoryGraph {
        try db.transaction(.deferred) { try HistoryGraphRows.graph(repositoryID: repositoryID, branches: branches, in: db) }
    }
}
