// Pull requests, derived from a history the way they left it: a merge titled "Merge pull request
// #N from owner/branch" is pull request N, merged (its merge commit the merge, its head the merge's
// second parent); a generated history also has squash- and rebase-merged ones, whose merge commit
// is a single-parent commit of the default branch and whose head is a branch tip the history
// never received.

import Foundation

struct PullRequest: Sendable, Equatable {
    enum MergeMethod: String, Sendable {
        case merge, squash, rebase
    }

    var number: Int
    var title: String
    var body: String
    var user: SimUser?
    var isOpen: Bool
    var baseRef: String
    var baseSHA: String
    /// `owner:branch` of the head, as GitHub labels it.
    var headOwner: String
    var headRef: String
    var headSHA: String
    var mergeCommitSHA: String?
    var method: MergeMethod?
    var createdAt: Int64
    var updatedAt: Int64
    var closedAt: Int64?
    var mergedAt: Int64?
}

/// Where a derived pull request comes from: the commit that merged it, and how.
struct PullRequestSeed: Sendable {
    var node: Int32
    var number: Int32
    var method: PullRequest.MergeMethod
}

enum PullRequestDerivation {
    /// A merged pull request opens this long before it is merged (a derived one has no other date).
    static let openFor: Int64 = 86_400

    /// Every pull request a history's commits show, newest merge first.
    static func seeds(of graph: any CommitGraph, head: Int) -> [PullRequestSeed] {
        if let synthetic = graph as? SyntheticRepository { return syntheticSeeds(synthetic) }
        var seeds: [PullRequestSeed] = []
        var seen = Set<Int32>()
        let listing = graph.listing(from: head, since: nil, until: nil)
        for position in 0..<listing.count {
            let node = listing[position]
            let record = graph.record(of: node)
            guard record.parents.count == 2, let parsed = parseMergeSubject(record.message), seen.insert(Int32(parsed.number)).inserted
            else { continue }
            seeds.append(PullRequestSeed(node: Int32(node), number: Int32(parsed.number), method: .merge))
        }
        return seeds.sorted { graph.committerTime(of: Int($0.node)) > graph.committerTime(of: Int($1.node)) }
    }

    /// A generated history's: each merge k (index k·m) is #k, merged; the commit after every odd
    /// merge is squash-merged (rebase-merged every other time), numbered after all the merges.
    private static func syntheticSeeds(_ history: SyntheticRepository) -> [PullRequestSeed] {
        let m = history.spec.mergeEvery <= 0 ? 0 : max(2, history.spec.mergeEvery)
        guard m > 2, history.count > m else { return [] }
        let merges = (history.count - 1) / m
        var seeds: [PullRequestSeed] = []
        seeds.reserveCapacity(merges + merges / 2 + 1)
        for k in stride(from: merges, through: 1, by: -1) {
            if k % 2 == 1, k * m + 1 < history.count {
                let method: PullRequest.MergeMethod = k % 4 == 1 ? .squash : .rebase
                seeds.append(PullRequestSeed(node: Int32(k * m + 1), number: Int32(merges + (k + 1) / 2), method: method))
            }
            seeds.append(PullRequestSeed(node: Int32(k * m), number: Int32(k), method: .merge))
        }
        return seeds
    }

    /// `Merge pull request #N from owner/branch` → (N, owner, branch).
    static func parseMergeSubject(_ message: String) -> (number: Int, owner: String, branch: String)? {
        let subject = message.prefix { $0 != "\n" }
        let prefix = "Merge pull request #"
        guard subject.hasPrefix(prefix) else { return nil }
        let rest = subject.dropFirst(prefix.count)
        let digits = rest.prefix { $0.isASCII && $0.isNumber }
        guard let number = Int(digits), number > 0, rest.dropFirst(digits.count).hasPrefix(" from ") else { return nil }
        let source = rest.dropFirst(digits.count + 6).prefix { $0 != " " }
        guard let slash = source.firstIndex(of: "/") else { return nil }
        return (number, String(source[..<slash]), String(source[source.index(after: slash)...]))
    }

    /// The pull request `seed` names, as the history shows it.
    static func pullRequest(_ seed: PullRequestSeed, graph: any CommitGraph, baseRef: String) -> PullRequest {
        let node = Int(seed.node)
        let record = graph.record(of: node)
        let merged = graph.committerTime(of: node)
        let number = Int(seed.number)
        var pull = PullRequest(
            number: number, title: "", body: "", user: record.author.user, isOpen: false, baseRef: baseRef,
            baseSHA: record.parents.first ?? record.sha, headOwner: "", headRef: "", headSHA: "", mergeCommitSHA: record.sha,
            method: seed.method, createdAt: merged - openFor, updatedAt: merged, closedAt: merged, mergedAt: merged)
        let paragraphs = record.message.components(separatedBy: "\n\n")
        if seed.method == .merge, let parsed = parseMergeSubject(record.message) {
            pull.title = paragraphs.count > 1 ? String(paragraphs[1].prefix { $0 != "\n" }) : parsed.branch
            pull.body = paragraphs.dropFirst(2).joined(separator: "\n\n")
            pull.headOwner = parsed.owner
            pull.headRef = parsed.branch
            pull.headSHA = record.parents.count > 1 ? record.parents[1] : record.sha
            pull.user = SimUser(login: SimUser.sanitizedLogin(parsed.owner), id: 2_000_000 + Int(Hashing.string(parsed.owner) % 1_000_000))
        } else {
            pull.title = paragraphs.first ?? ""
            pull.body = paragraphs.dropFirst().joined(separator: "\n\n")
            pull.headOwner = pull.user?.login ?? "ghost"
            pull.headRef = "pr-\(number)"
            // The branch tip before GitHub squashed or rebased it: a commit the base never received.
            pull.headSHA = String(Hashing.hex256("pull-head|\(record.sha)").prefix(40))
        }
        return pull
    }
}
