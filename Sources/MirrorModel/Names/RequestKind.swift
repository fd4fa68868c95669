/// What a request to the API was for, as `commitsctl status --requests` reports
/// what a token spent.
public enum RequestKind: String, Sendable, CaseIterable, Codable, Comparable {
    /// A branch head probe (`If-None-Match`), the poll of a mirrored branch.
    case poll
    /// A page of a commit listing (a walk).
    case page
    /// A page of an owner's repositories (`OWNER/*` patterns).
    case ownerListing = "owner_listing"
    /// A page of a repository's branches (`branches:` with globs, docs/BRANCHES.md).
    case branchListing = "branch_listing"
    /// `GET /repos/{o}/{r}/branches/{branch}`: confirming a branch a listing lacks is gone.
    case branchLookup = "branch_lookup"
    /// `GET /repos/{o}/{r}`: the repository's identity.
    case repositoryLookup = "repository_lookup"
    /// `GET /repos/{o}/{r}/compare/…`: confirming a rewrite.
    case compare
    /// A GitHub App's own request (its JWT): minting an installation token, finding the installation.
    case appToken = "app_token"
    /// `GET /repos/{o}/{r}/git/refs/tags`: a repository's tag refs.
    case tagRefs = "tag_refs"
    /// `GET /repos/{o}/{r}/git/tags/{sha}`: an annotated tag's object, read once per object.
    case tagObject = "tag_object"
    /// A page of `GET /repos/{o}/{r}/pulls`, listed by update.
    case pullRequests = "pull_requests"

    public static func < (lhs: Self, rhs: Self) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}

/// Requests of one kind and what they cost.
public struct RequestTally: Sendable, Equatable, Codable {
    public var requests = 0
    /// Answered 304 Not Modified.
    public var notModified = 0
    /// Points against the primary rate limit: every request except a 304
    /// answered to a token (GitHub does not count those).
    public var points = 0

    public init(requests: Int = 0, notModified: Int = 0, points: Int = 0) {
        self.requests = requests
        self.notModified = notModified
        self.points = points
    }

    public static func - (lhs: Self, rhs: Self) -> Self {
        RequestTally(
            requests: lhs.requests - rhs.requests, notModified: lhs.notModified - rhs.notModified,
            points: lhs.points - rhs.points)
    }

    public static func + (lhs: Self, rhs: Self) -> Self {
        RequestTally(
            requests: lhs.requests + rhs.requests, notModified: lhs.notModified + rhs.notModified,
            points: lhs.points + rhs.points)
    }
}
