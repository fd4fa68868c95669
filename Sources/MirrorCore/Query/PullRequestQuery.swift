import Foundation

/// `query --pr N`: the commits a merged pull request brought in, in each repository
/// searched that merged a pull request of that number. Its merge commit and what
/// that commit reaches that its first parent does not (`git log M^1..M`): a merge's
/// side branch, a squash or rebase's one commit on the base.
public enum PullRequestQuery {
    public static func restrict(
        _ filter: inout CommitFilter, toPullRequest number: Int, in reader: any MirrorReading
    ) throws -> RevisionQuery.Selection {
        var ranges: [Int64: RevisionRange] = [:]
        var unmerged: RepositoryPullRequest?
        var unmirrored: RepositoryPullRequest?
        for repository in try reader.repositories(selectedBy: filter.repository) {
            guard let found = try reader.pullRequest(number, repositoryID: repository.id) else { continue }
            guard found.pullRequest.isMerged, let merge = found.pullRequest.mergeCommitSHA else {
                unmerged = unmerged ?? found
                continue
            }
            guard found.mergedAs != nil else {
                unmirrored = unmirrored ?? found
                continue
            }
            ranges[repository.id] = RevisionRange(terms: [
                .exclude(Revision(name: merge, steps: [.parent(1)])), .include(Revision(name: merge)),
            ])
        }
        if ranges.isEmpty {
            if let unmirrored { throw PullRequestQueryError.mergeNotMirrored(unmirrored) }
            if let unmerged { throw PullRequestQueryError.notMerged(unmerged) }
            throw PullRequestQueryError.unknown(number)
        }
        return try RevisionQuery.restrict(&filter, toRanges: ranges, in: reader)
    }
}

/// Why `query --pr N` lists nothing.
public enum PullRequestQueryError: Error, Equatable, CustomStringConvertible {
    /// No repository searched has a pull request of that number.
    case unknown(Int)
    /// It is open, or was closed without being merged: it brought no commits.
    case notMerged(RepositoryPullRequest)
    /// Its merge commit is not in the mirrored history (yet).
    case mergeNotMirrored(RepositoryPullRequest)

    public var description: String {
        switch self {
        case .unknown(let number):
            return "no mirrored repository searched has a pull request #\(number)"
        case .notMerged(let found):
            let state = found.pullRequest.state == .open ? "open" : "closed without being merged"
            return "\(found.repository)#\(found.pullRequest.number) is \(state): it brought no commits"
        case .mergeNotMirrored(let found):
            let sha = found.pullRequest.mergeCommitSHA.map { String($0.prefix(12)) } ?? "?"
            return "\(found.repository)#\(found.pullRequest.number) was merged as \(sha), which the mirrored history does not hold"
        }
    }
}
