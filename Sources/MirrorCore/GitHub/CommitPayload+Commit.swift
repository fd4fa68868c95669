import Foundation

extension Commit {
    /// The one mapping from GitHub's list element to the mirror's commit.
    public init(_ payload: CommitPayload) {
        // commit.author/committer are nullable in GitHub's schema (never seen null):
        // keep the commit with an empty signature rather than drop it.
        let author = payload.commit.author
        let committer = payload.commit.committer ?? author
        let committerDate = committer?.date ?? author?.date ?? Date(timeIntervalSince1970: 0)
        self.init(
            sha: payload.sha.lowercased(),
            message: payload.commit.message,
            author: Signature(
                identity: Identity(name: author?.name ?? "", email: author?.email ?? "", login: payload.author?.login),
                date: author?.date ?? committerDate),
            committer: Signature(
                identity: Identity(
                    name: committer?.name ?? "", email: committer?.email ?? "",
                    login: payload.committer?.login),
                date: committerDate),
            parents: payload.parents.map { $0.sha.lowercased() },
            treeSHA: payload.commit.tree?.sha,
            htmlURL: payload.htmlURL)
    }
}

extension PayloadDecoder {
    /// A page of GitHub's "list commits", as the mirror's commits.
    public func decodeCommits(_ bytes: [UInt8]) throws -> [Commit] {
        try decodeCommitPage(bytes).map(Commit.init)
    }
}
