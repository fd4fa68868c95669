import Foundation

/// A payload flattened into the columns the store keeps.
struct CommitRecord {
    struct Person {
        var name: String
        var email: String
    }

    var sha: String
    var message: String
    var htmlURL: String?
    var author: Person
    var authorDate: String
    var committer: Person
    var committerDate: String
    var parents: [String]
    var treeSHA: String?

    init(_ payload: CommitPayload) {
        sha = payload.sha.lowercased()
        message = payload.commit.message
        htmlURL = payload.htmlURL
        // commit.author/committer are nullable in GitHub's schema (never seen null):
        // keep the row with an empty signature rather than drop the commit.
        let author = payload.commit.author
        let committer = payload.commit.committer ?? author
        self.author = Person(name: author?.name ?? "", email: author?.email ?? "")
        self.committer = Person(name: committer?.name ?? "", email: committer?.email ?? "")
        let fallbackDate = committer?.date ?? author?.date ?? Date(timeIntervalSince1970: 0)
        authorDate = ISO8601Timestamp.format(author?.date ?? fallbackDate)
        committerDate = ISO8601Timestamp.format(fallbackDate)
        parents = payload.parents.map { $0.sha.lowercased() }
        treeSHA = payload.commit.tree?.sha
    }
}
