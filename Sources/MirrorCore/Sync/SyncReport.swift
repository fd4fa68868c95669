import Foundation

/// The outcome of syncing one branch, for the one-line summary and `status`.
public struct SyncReport: Sendable, Equatable {
    public var repository: RepositoryName
    public var branch: String
    public var headSHA: String?
    /// Commits that joined the repository in this sync.
    public var added = 0
    /// Stored commits whose data changed.
    public var updated = 0
    /// Commits a confirmed history rewrite (force-push) left off every mirrored
    /// branch: kept in the store, hidden from queries by default.
    public var leftBranch = 0
    /// Commits marked off-branch before that a branch reaches again.
    public var returned = 0
    public var pages = 0
    /// Of `added`, the commits read over git (`GitBootstrap`).
    public var addedOverGit = 0
    /// REST API requests.
    public var requests = 0
    /// Requests to the git host (they spend no REST rate limit).
    public var gitRequests = 0
    public var notModified = 0
    public var rateLimit: RateLimitStatus?
    public var elapsed: Duration = .zero
    /// True when the stored history is known to be whole down to its roots.
    public var complete = false
    /// The default branch's name before GitHub renamed it to `branch`: that branch is
    /// gone from GitHub, its rows kept (`SyncEngine.followRenamedDefaultBranch`).
    public var renamedFrom: String?
    /// Commits stored before whose changed paths this sync read over git (`SyncEngine.backfillPaths`).
    public var pathsRead = 0
    /// What the repository's tag listing changed in this sync (nil: not read, or unchanged).
    public var tags: TagChanges?
    /// Why the tags could not be read, when they could not (one line); the sync itself stands.
    public var tagsFailure: String?
    /// What the repository's pull request listing changed in this sync (nil: not read, or unchanged).
    public var pullRequests: PullRequestChanges?
    /// Why the pull requests could not be read, when they could not (one line); the sync itself stands.
    public var pullRequestsFailure: String?

    /// `swiftlang/swift-evolution@main: 7807 new, 0 updated, 81 requests (1 not modified), rate limit 4919/5000, 3.2 s`
    public var summary: String {
        var text = "\(repository)@\(branch): \(added) new"
        if addedOverGit > 0 { text += " (\(addedOverGit) over git)" }
        text += ", \(updated) updated"
        if leftBranch > 0 { text += ", \(leftBranch) left the branch (history rewritten; kept, hidden from queries)" }
        if returned > 0 { text += ", \(returned) back on the branch" }
        text += ", \(plural(requests, "request"))"
        if notModified > 0 { text += " (\(notModified) not modified)" }
        if pathsRead > 0 { text += ", paths of \(plural(pathsRead, "commit")) read" }
        if let tags, !tags.isEmpty { text += ", tags: \(tags.added) new, \(tags.moved) moved, \(tags.deleted) deleted" }
        if let tagsFailure { text += ", tags not read (\(tagsFailure))" }
        if let pulls = pullRequests, !pulls.isEmpty {
            text += ", pull requests: \(pulls.added) new, \(pulls.updated) updated"
            if !pulls.mergesNotHeld.isEmpty { text += " (\(Self.mergesNotHeld(pulls.mergesNotHeld)))" }
        }
        if let pullRequestsFailure { text += ", pull requests not read (\(pullRequestsFailure))" }
        if gitRequests > 0 { text += ", \(plural(gitRequests, "git request"))" }
        if let rateLimit { text += ", rate limit \(rateLimit.remaining)/\(rateLimit.limit) remaining" }
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        text += String(format: ", %.1f s", seconds)
        if !complete { text += ", history not yet complete" }
        if let renamedFrom { text += "; the default branch was \(renamedFrom), renamed on GitHub (\(renamedFrom) is kept as gone)" }
        return text
    }
}

extension SyncReport {
    /// `#12 merged as a commit the mirrored history does not hold`, naming at most five.
    static func mergesNotHeld(_ numbers: [Int]) -> String {
        let named = numbers.prefix(5).map { "#\($0)" }.joined(separator: ", ")
        let more = numbers.count > 5 ? " and \(numbers.count - 5) more" : ""
        let what = numbers.count == 1 ? "a commit" : "commits"
        return "\(named)\(more) merged as \(what) the mirrored history does not hold, not linked"
    }
}

/// Progress of a long walk, for terminals and logs.
public struct SyncProgress: Sendable {
    public var repository: RepositoryName
    public var pagesDone: Int
    public var pagesTotal: Int?
    public var commitsStored: Int
    public var elapsed: Duration
}
