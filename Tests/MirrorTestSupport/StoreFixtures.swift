import Foundation
import MirrorCore

/// Commits and a repository written by hand, for the store tests of every backend.
public enum StoreFixtures {
    public static func person(_ name: String, login: String? = nil, at seconds: TimeInterval) -> Signature {
        Signature(
            identity: Identity(name: name, email: "\(name.lowercased())@example.com", login: login),
            date: Date(timeIntervalSince1970: seconds))
    }

    public static func commit(_ n: Int, parents: [Int], message: String? = nil, author: String = "Ada") -> Commit {
        Commit(
            sha: PayloadFixtures.sha(n), message: message ?? "commit \(n)\n\nbody of \(n)",
            author: person(author, at: TimeInterval(1_700_000_000 + n)),
            committer: person("Grace", at: TimeInterval(1_700_000_000 + n)), parents: parents.map(PayloadFixtures.sha))
    }

    public static let identity = RepositoryIdentity(
        githubID: 4242, fullName: RepositoryName(owner: "acme", name: "widgets"), defaultBranch: "main", htmlURL: nil)
}
