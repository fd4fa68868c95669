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
        try read {
            let heads = try connection.execute(
                "SELECT s.branch, c.id FROM sync_state s JOIN commits c ON c.sha = s.head_sha WHERE s.repository_id = $1::bigint",
                [repositoryID])
            let tips = (0..<heads.count).compactMap { row -> Int64? in
                guard let branch = heads.string(row, 0), branches?.matches(branch) ?? true else { return nil }
                return heads.int64(row, 1)
            }
            let links = try connection.execute(
                """
                SELECT rc.commit_id, cp.position, p.id FROM repository_commits rc
                LEFT JOIN commit_parents cp ON cp.commit_id = rc.commit_id
                LEFT JOIN commits p ON p.sha = cp.parent_sha
                WHERE rc.repository_id = $1::bigint ORDER BY rc.commit_id, cp.position
                """, [repositoryID])
            var parents: [Int64: [Int64?]] = [:]
            for row in 0..<links.count {
                guard let commit = links.int64(row, 0) else { continue }
                if links.isNull(row, 1) {
                    parents[commit] = parents[commit] ?? []
                } else {
                    parents[commit, default: []].append(links.int64(row, 2))
                }
            }
            let uncovered = try connection.execute(
                """
                SELECT rc.commit_id FROM repository_commits rc WHERE rc.repository_id = $1::bigint
                AND NOT EXISTS (SELECT 1 FROM commit_changes_read r WHERE r.commit_id = rc.commit_id)
                """, [repositoryID])
            return HistoryGraph(
                tips: tips, parents: parents, withoutChanges: Set((0..<uncovered.count).compactMap { uncovered.int64($0, 0) }))
        }
    }
}
