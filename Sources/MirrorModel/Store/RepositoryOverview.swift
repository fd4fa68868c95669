/// One mirrored repository as `commitsctl repos` lists it.
public struct RepositoryOverview: Sendable, Equatable {
    public var name: String
    /// Names it was known by before (renames, transfers, what a user typed).
    public var formerNames: [String]
    public var githubID: Int?
    /// The branches synced, or the default branch when none was yet.
    public var branches: [String]
    public var commits: Int
    public var state: RepositoryState
    public var stateReason: String?
    public var stateChangedAt: String?
    /// The latest successful sync of any of its branches.
    public var lastSuccessAt: String?
    /// Every synced branch is complete, and at least one was synced.
    public var complete: Bool

    public init(
        name: String, formerNames: [String], githubID: Int?, branches: [String], commits: Int, state: RepositoryState,
        stateReason: String?, stateChangedAt: String?, lastSuccessAt: String?, complete: Bool
    ) {
        self.name = name
        self.formerNames = formerNames
        self.githubID = githubID
        self.branches = branches
        self.commits = commits
        self.state = state
        self.stateReason = stateReason
        self.stateChangedAt = stateChangedAt
        self.lastSuccessAt = lastSuccessAt
        self.complete = complete
    }
}
