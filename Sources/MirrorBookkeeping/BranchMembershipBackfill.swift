/// What the branch-membership migration of either store fills in for a store made before
/// it: a branch per `sync_state` row, and `reach(branch_id, sha)`, every commit its head
/// reaches through stored parents. Each backend inserts `reach` into `branch_commits` in its
/// own spelling of "unless already there".
public enum BranchMembershipBackfill {
    public static let branches = """
        INSERT INTO repository_branches (repository_id, name) SELECT repository_id, branch FROM sync_state;
        """

    public static let reach = """
        WITH RECURSIVE reach(branch_id, sha) AS (
            SELECT b.id, s.head_sha FROM repository_branches b
            JOIN sync_state s ON s.repository_id = b.repository_id AND s.branch = b.name
            WHERE s.head_sha IS NOT NULL
            UNION
            SELECT r.branch_id, cp.parent_sha FROM reach r
            JOIN commits c ON c.sha = r.sha
            JOIN commit_parents cp ON cp.commit_id = c.id
        )
        """
}
