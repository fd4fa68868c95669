import Foundation
import GitHash

extension Commit {
    /// The one mapping from a git commit object to the mirror's commit, as
    /// GitHub's REST listing shows the same commit: dates as UTC instants (the
    /// offset dropped), the message without its trailing newlines, no logins
    /// (only GitHub knows which account an email belongs to).
    init(_ object: GitCommitObject, id: ObjectID, htmlURLPrefix: String?) {
        var message = Substring(object.message)
        while message.last == "\n" { message.removeLast() }
        let sha = id.hex
        self.init(
            sha: sha,
            message: String(message),
            author: Signature(
                identity: Identity(name: object.author.name, email: object.author.email),
                date: Date(timeIntervalSince1970: TimeInterval(object.author.time))),
            committer: Signature(
                identity: Identity(name: object.committer.name, email: object.committer.email),
                date: Date(timeIntervalSince1970: TimeInterval(object.committer.time))),
            parents: object.parents.map(\.hex),
            treeSHA: object.tree.hex,
            htmlURL: htmlURLPrefix.map { "\($0)/commit/\(sha)" })
    }
}
