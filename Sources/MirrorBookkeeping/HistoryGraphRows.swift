import MirrorCore

/// `MirrorReading.historyGraph` written once for every store: the statements are
/// the same in both dialects; each reader supplies its read transaction.
public enum HistoryGraphRows {
    /// One repository's stored graph from the heads of the branches `branches` selects (or all).
    public static func graph(
        repositoryID: Int64, branches: BranchSelection?, in session: some SQLSession
    ) throws -> HistoryGraph {
        let heads = try session.rows(headsOfBranches, [repositoryID]) { row in (branch: row.string(0) ?? "", id: row.int64(1)) }
        // Parents are named by sha: two narrow scans and a dictionary cost far less than
        // looking every parent up in the sha index.
        var idOfSHA: [String: Int64] = [:]
        var parents: [Int64: [Int64?]] = [:]
        try session.forEachRow(repositoryCommits, [repositoryID]) { row in
            guard let id = row.int64(0), let sha = row.string(1) else { return }
            idOfSHA[sha] = id
            parents[id] = []
        }
        try session.forEachRow(parentLinks, [repositoryID]) { row in
            guard let commit = row.int64(0), let position = row.int(1), position >= 0, let sha = row.string(2) else { return }
            var list = parents[commit] ?? []
            // Rows come in key order; a position seen early still lands in its place.
            while list.count <= position { list.append(nil) }
            list[position] = idOfSHA[sha]
            parents[commit] = list
        }
        let withoutChanges = try session.rows(commitsWithoutChanges, [repositoryID]) { $0.int64(0) }.compactMap { $0 }
        return HistoryGraph(
            tips: heads.filter { branches?.matches($0.branch) ?? true }.compactMap(\.id), parents: parents,
            withoutChanges: Set(withoutChanges))
    }

    private static let headsOfBranches = PortableSQL(
        "SELECT s.branch, c.id FROM sync_state s JOIN commits c ON c.sha = s.head_sha WHERE s.repository_id = ?")
    /// Every commit of the repository, by id and sha.
    private static let repositoryCommits = PortableSQL(
        "SELECT c.id, c.sha FROM repository_commits rc JOIN commits c ON c.id = rc.commit_id WHERE rc.repository_id = ?")
    /// Every parent link of the repository's commits (a root has none).
    private static let parentLinks = PortableSQL(
        """
        SELECT cp.commit_id, cp.position, cp.parent_sha FROM repository_commits rc
        JOIN commit_parents cp ON cp.commit_id = rc.commit_id WHERE rc.repository_id = ?
        """)
    private static let commitsWithoutChanges = PortableSQL(
        """
        SELECT rc.commit_id FROM repository_commits rc WHERE rc.repository_id = ?
        AND NOT EXISTS (SELECT 1 FROM commit_changes_read r WHERE r.commit_id = rc.commit_id)
        """)
}
