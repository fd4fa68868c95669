import MirrorBookkeeping
import MirrorCore
import PostgreSQL

// What a path query reads of a PostgreSQL store: MirrorReader+Changes.swift's
// path reads in PostgreSQL's SQL, bytea read as hex digits.

extension PostgreSQLReader {
    public func forEachStoredPath(_ body: (_ id: Int64, _ path: [UInt8]) throws -> Void) throws {
        let rows = try connection.execute("SELECT id, encode(path, 'hex') FROM paths")
        for row in 0..<rows.count {
            try body(rows.int64(row, 0) ?? 0, FileChange.bytes(hexDigits: rows.string(row, 1) ?? ""))
        }
    }

    public func parentsChanging(pathIDs: [Int64]) throws -> [Int64: Set<Int>] {
        guard !pathIDs.isEmpty else { return [:] }
        let rows = try connection.execute(
            "SELECT commit_id, parent FROM commit_changes WHERE path_id = ANY($1::bigint[])", [BigIntArray(pathIDs)])
        var parents: [Int64: Set<Int>] = [:]
        for row in 0..<rows.count {
            guard let commit = rows.int64(row, 0), let parent = rows.int(row, 1) else { continue }
            parents[commit, default: []].insert(parent)
        }
        return parents
    }

    public func historyGraph(repositoryID: Int64, branches: BranchSelection?) throws -> HistoryGraph {
        try read { try HistoryGraphRows.graph(repositoryID: repositoryID, branches: branches, in: connection) }
    }
}
