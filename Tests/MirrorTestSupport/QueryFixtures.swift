import Foundation
import GitHubSim
import SQLite
import MirrorCore
import MirrorSQLite

/// Stores for the query tests, filled through the store's own upsert path.
public enum QueryFixtures {
    /// A dataset commit as GitHub's API would deliver it: UTC dates, trailing
    /// newlines of the message stripped.
    public static func payload(_ commit: DatasetCommit, repository: String = "swiftlang/swift-evolution") -> CommitPayload {
        func signature(_ person: DatasetPerson) -> GitSignature {
            GitSignature(name: person.name, email: person.email, date: ISO8601Timestamp.parse(person.date)!)
        }
        var message = commit.message
        while message.hasSuffix("\n") { message.removeLast() }
        return CommitPayload(
            sha: commit.sha,
            commit: GitCommit(
                author: signature(commit.author), committer: signature(commit.committer),
                message: message, tree: nil),
            htmlURL: "https://github.com/\(repository)/commit/\(commit.sha)",
            author: nil, committer: nil,
            parents: commit.parents.map(ParentReference.init(sha:)))
    }

    /// A commit written by hand for small stores.
    public static func payload(
        sha: String, message: String, author: (String, String) = ("Ada Lovelace", "ada@example.com"),
        committer: (String, String)? = nil, date: String, parents: [String] = [],
        login: String? = nil, repository: String = "o/r"
    ) -> CommitPayload {
        let when = ISO8601Timestamp.parse(date)!
        let committer = committer ?? author
        return CommitPayload(
            sha: sha,
            commit: GitCommit(
                author: GitSignature(name: author.0, email: author.1, date: when),
                committer: GitSignature(name: committer.0, email: committer.1, date: when),
                message: message, tree: nil),
            htmlURL: "https://github.com/\(repository)/commit/\(sha)",
            author: login.map { GitHubUser(login: $0) }, committer: nil,
            parents: parents.map(ParentReference.init(sha:)))
    }

    /// Upserts `payloads` into `repository` in one transaction, newest first, as a sync would.
    /// Stores the commits in one transaction and, unless `indexingMessages` is
    /// false, brings the message index up to them (as the end of a sync does).
    public static func fill(_ store: MirrorStore, _ payloads: [CommitPayload], repository: String, indexingMessages: Bool = true) throws {
        let repo = try store.ensureRepository(named: RepositoryName(parsing: repository)!)
        try store.write {
            for start in stride(from: 0, to: payloads.count, by: 500) {
                _ = try store.upsert(payloads[start..<min(start + 500, payloads.count)].map(Commit.init), repositoryID: repo.id)
            }
        }
        if indexingMessages { try store.catchUpMessageIndex() }
    }

    public static func sha(_ n: Int, prefix: String = "") -> String {
        let hex = String(n, radix: 16)
        return prefix + String(repeating: "0", count: 40 - hex.count - prefix.count) + hex
    }

    // MARK: - The swift-evolution dataset

    /// The dataset, read once.
    public static let dataset: [DatasetCommit] = {
        (try? Dataset.load(path: PackagePaths.swiftEvolutionDataset)) ?? []
    }()

    /// A store holding the dataset, built once per test run and then only read.
    public static let datasetStorePath: String = {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("query-tests-\(UUID().uuidString)")
        try! FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let path = directory.appendingPathComponent("swift-evolution.sqlite").path
        let store = try! MirrorStore(path: path)
        try! fill(store, dataset.map { payload($0) }, repository: "swiftlang/swift-evolution")
        return path
    }()
}

extension String {
    /// Substring test on Unicode scalars, the way the message index compares
    /// (a character-level `contains` would miss "fix" followed by a combining mark).
    public func containsScalars(_ needle: String) -> Bool {
        let haystack = Array(unicodeScalars), pattern = Array(needle.unicodeScalars)
        guard !pattern.isEmpty else { return true }
        guard haystack.count >= pattern.count else { return false }
        for start in 0...(haystack.count - pattern.count) where haystack[start] == pattern[0] {
            if Array(haystack[start..<(start + pattern.count)]) == pattern { return true }
        }
        return false
    }
}
