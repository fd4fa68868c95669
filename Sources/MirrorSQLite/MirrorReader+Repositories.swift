import MirrorBookkeeping
import MirrorCore
import SQLite

// `repos` on a SQLite store: the values (`RepositoryOverview`) are MirrorCore's.

extension MirrorReader {
    /// Every repository the store holds, by current name.
    public func repositoryOverviews() throws -> [RepositoryOverview] {
        let rows = try db.prepare(
            """
            SELECT r.id, r.full_name, r.github_id, r.default_branch, r.state, r.state_reason, r.state_changed_at,
                   (SELECT count(*) FROM repository_commits rc WHERE rc.repository_id = r.id),
                   (SELECT group_concat(branch, ',') FROM (SELECT branch FROM sync_state s WHERE s.repository_id = r.id ORDER BY branch)),
                   (SELECT max(last_success_at) FROM sync_state s WHERE s.repository_id = r.id),
                   (SELECT count(*) > 0 AND min(complete) = 1 FROM sync_state s WHERE s.repository_id = r.id)
            FROM repositories r ORDER BY r.full_name
            """
        ).map { row in
            let branches = row.optionalString(8).map { $0.split(separator: ",").map(String.init) } ?? []
            let overview = RepositoryOverview(
                name: row.string(1), formerNames: [], githubID: row.optionalInt(2),
                branches: branches.isEmpty ? (row.optionalString(3).map { [$0] } ?? []) : branches,
                commits: row.int(7), state: RepositoryState(rawValue: row.string(4)) ?? .active,
                stateReason: row.optionalString(5), stateChangedAt: row.optionalString(6),
                lastSuccessAt: row.optionalString(9), complete: row.int(10) != 0)
            return (id: row.int64(0), overview: overview)
        }
        return try rows.map { row in
            var overview = row.overview
            overview.formerNames = try formerNames(of: row.id)
            return overview
        }
    }
}
