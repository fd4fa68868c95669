import Foundation
import GitHubSim
import MirrorTestSupport

/// A real git repository, made by git itself, holding the real history of
/// swiftlang/swift-evolution (7,807 commits and their merges, with their authors,
/// dates and messages; empty trees, as only commits are mirrored) and branches
/// cut from it the way a project grows them: release branches that fork from
/// the default branch and gain commits of their own (one merging a real topic
/// branch), a real topic branch (the second parent of a merge), and one
/// unrelated branch with a root of its own, like a `gh-pages`.
struct RealHistoryRepository {
    let path: String
    let directory: TemporaryDirectory

    /// Every branch of the repository.
    static let branches = ["gh-pages", "main", "release/5.9", "release/6.0", "topic/proposal-review"]

    static func make(in directory: TemporaryDirectory) async throws -> RealHistoryRepository {
        let repository = RealHistoryRepository(path: directory.path("swift-evolution.git"), directory: directory)
        try await repository.git(["init", "-q", "--bare", "-b", "main", repository.path], inRepository: false)
        let commits = try Dataset.load(path: PackagePaths.swiftEvolutionDataset)
        let stream = directory.path("fast-import")
        try Self.fastImportStream(commits).write(to: URL(fileURLWithPath: stream))
        let imported = try await runProgram(
            "/bin/sh", ["-c", "exec /usr/bin/git -C \"$0\" fast-import --quiet < \"$1\"", repository.path, stream],
            environment: repository.environment)
        guard imported.status == 0 else { throw RealHistoryError(step: "git fast-import", detail: imported.stderr) }

        // main's first-parent line, head first.
        let line = try await repository.git(["rev-list", "--first-parent", "main"]).split(separator: "\n").map(String.init)
        let release59 = try await repository.commits(onto: line[1_500], count: 2, label: "5.9")
        let merges = try await repository.git(["rev-list", "--merges", "--first-parent", "main"]).split(separator: "\n")
        // A real topic branch: the second parent of the tenth merge down main.
        let topic = try await repository.git(["rev-parse", "\(merges[10])^2"]).trimmingCharacters(in: .whitespacesAndNewlines)
        let release60Base = try await repository.commits(onto: line[400], count: 3, label: "6.0")
        let release60 = try await repository.commitTree(
            parents: [release60Base, topic], message: "Merge the proposal review into release/6.0\n", seconds: 40)
        var pages = try await repository.commitTree(parents: [], message: "Initial gh-pages\n", seconds: 50)
        for page in 1...30 {
            pages = try await repository.commitTree(parents: [pages], message: "Publish the site (\(page))\n", seconds: 50 + page)
        }
        for (branch, head) in [
            ("release/5.9", release59), ("release/6.0", release60), ("topic/proposal-review", topic), ("gh-pages", pages),
        ] {
            _ = try await repository.git(["update-ref", "refs/heads/\(branch)", head])
        }
        return repository
    }

    /// `git rev-list BRANCH` of the real repository.
    func revList(_ branch: String) async throws -> Set<String> {
        Set(try await git(["rev-list", branch]).split(separator: "\n").map(String.init))
    }

    /// `git branch --contains SHA`, as names.
    func branchesContaining(_ sha: String) async throws -> [String] {
        try await git(["branch", "--contains", sha, "--format=%(refname:short)"]).split(separator: "\n").map(String.init).sorted()
    }

    /// `count` commits on top of `base`, each with a message of its own; returns the last.
    private func commits(onto base: String, count: Int, label: String) async throws -> String {
        var head = base
        for index in 1...count {
            head = try await commitTree(
                parents: [head], message: "[\(label)] Cherry-pick fix \(index)\n\nFor the release.\n", seconds: index)
        }
        return head
    }

    private func commitTree(parents: [String], message: String, seconds: Int) async throws -> String {
        let emptyTree = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
        let date = "@\(1_790_000_000 + seconds) -0700"
        let result = try await runProgram(
            "/usr/bin/git", ["-C", path, "commit-tree", emptyTree] + parents.flatMap { ["-p", $0] } + ["-m", message],
            environment: environment.merging([
                "GIT_AUTHOR_NAME": "Release Manager", "GIT_AUTHOR_EMAIL": "releases@example.org", "GIT_AUTHOR_DATE": date,
                "GIT_COMMITTER_NAME": "Release Manager", "GIT_COMMITTER_EMAIL": "releases@example.org", "GIT_COMMITTER_DATE": date,
            ]) { _, new in new })
        guard result.status == 0 else { throw RealHistoryError(step: "git commit-tree", detail: result.stderr) }
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @discardableResult
    func git(_ arguments: [String], inRepository: Bool = true) async throws -> String {
        let result = try await runProgram("/usr/bin/git", (inRepository ? ["-C", path] : []) + arguments, environment: environment)
        guard result.status == 0 else { throw RealHistoryError(step: "git \(arguments.first ?? "")", detail: result.stderr) }
        return result.stdout
    }

    private var environment: [String: String] {
        ["TZ": "UTC", "HOME": directory.path("."), "GIT_CONFIG_NOSYSTEM": "1"]
    }

    /// The dataset as a `git fast-import` stream, oldest commit first (the file is
    /// newest first, parents after children), each commit on `main` by mark.
    static func fastImportStream(_ commits: [DatasetCommit]) throws -> Data {
        var marks: [String: Int] = [:]
        var stream = Data()
        for (index, commit) in commits.reversed().enumerated() {
            let mark = index + 1
            marks[commit.sha] = mark
            var header = "commit refs/heads/main\nmark :\(mark)\n"
            header += "author \(try ident(commit.author))\ncommitter \(try ident(commit.committer))\n"
            let message = Data(commit.message.utf8)
            header += "data \(message.count)\n"
            stream.append(Data(header.utf8))
            stream.append(message)
            var parents = "\n"
            for (position, parent) in commit.parents.enumerated() {
                guard let parentMark = marks[parent] else {
                    throw RealHistoryError(step: "the dataset", detail: "\(commit.sha)'s parent \(parent) comes before it")
                }
                parents += position == 0 ? "from :\(parentMark)\n" : "merge :\(parentMark)\n"
            }
            // Each commit is put on `main` by an explicit `from`; a second root would take main's tip as its parent.
            if commit.parents.isEmpty && index > 0 {
                throw RealHistoryError(step: "the dataset", detail: "a second root, \(commit.sha)")
            }
            stream.append(Data(parents.utf8))
        }
        return stream
    }

    /// `Name <email> 1755827913 -0400` from a dataset person's ISO 8601 date with its offset.
    static func ident(_ person: DatasetPerson) throws -> String {
        let date = person.date
        guard let time = ISO8601DateFormatter().date(from: date) else {
            throw RealHistoryError(step: "the dataset", detail: "unreadable date \(date)")
        }
        var offset = "+0000"
        if !date.hasSuffix("Z"), date.count >= 6 {
            let tail = date.suffix(6)
            offset = String(tail.prefix(1)) + tail.dropFirst().replacingOccurrences(of: ":", with: "")
        }
        return "\(person.name) <\(person.email)> \(Int(time.timeIntervalSince1970)) \(offset)"
    }
}

struct RealHistoryError: Error, CustomStringConvertible {
    var step: String
    var detail: String
    var description: String { "\(step) failed: \(detail)" }
}
