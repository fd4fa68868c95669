import MirrorCore

/// `MirrorReading.historyGraph` written once for every store: the statements are
/// the same in both dialects; each reader supplies its read transaction.
public enum HistoryGraphRows {
    /// One repository's stored graph from the heads of the branches `branches` selects (or all).
    public static func graph(
        repositoryID: Int64, branches: BranchSelection?, in session: some SQLSession
    ) throws -> HistoryGraph {
        let heads = try session.rows(headsOfBranches, [repositoryID]) { row in (branch: row.string(0) ?? "", id: row.int64(1)) }
        var parents: [Int64: [Int64?]] = [:]
        try session.forEachRow(parentLinks, [repositoryID]) { row in
            guard let commit = row.int64(0) else { return }
            if row.int64(1) == nil {
                parents[commit] = parents[commit] ?? []
            } else {
                parents[commit, default: []].append(row.int64(2))
            }
        }
        let withoutChanges = try session.rows(commitsWithoutChanges, [repositoryID]) { $0.int64(0) }.compactMap { $0 }
        return HistoryGraph(
            tips: heads.filter { branches?.matches($0.branch) ?? true }.compactMap(\.id), parents: parents,
            withoutChanges: Set(withoutChanges))
    }

    private static let headsOfBranches = PortableSQL(
        "SELECT s.branch, c.id FROM sync_state s JOIN commits c ON c.sha = s.head_sha WHERE s.repository_id = ?")
    /// Every commit of the repository with its parents in order (a root: one row without a parent).
    private static let parentLinks = PortableSQL(
        """
        SELECT rc.commit_id, cp.position, p.id FROM repository_commits rc
        LEFT JOIN commit_parents cp ON cp.commit_id = rc.commit_id
        LEFT JOIN commits p ON p.sha = cp.parent_sha
        WHERE rc.repository_id = ? ORDER BY rc.commit_id, cp.position
        """)
    private static let commitsWithoutChanges = PortableSQL(
        """
        SELECT rc.commit_id FROM repository_commits rc WHERE rc.repository_id = ?
        AND NOT EXISTS (SELECT 1 FROM commit_changes_read r WHERE r.commit_id = rc.commit_id)
        """)
}
