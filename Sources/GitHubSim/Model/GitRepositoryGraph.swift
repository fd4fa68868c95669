// A real git repository on disk, read with the `git` binary into the graph a dataset makes
// (DatasetGraph), plus what a dataset lacks: the commits' raw objects, served as they are over git's
// smart HTTP (so every sha matches, signed commits too), and the repository's branches and tags.

import Foundation
import Synchronization

enum GitRepositoryGraph {
    /// Graphs already read in this process, keyed by path, `HEAD` and every branch head: objects
    /// are named by their content, so the same refs mean the same history.
    private static let loaded = Mutex<[String: DatasetGraph]>([:])

    /// Every commit reachable from a branch or a tag of the repository at `path` (bare or not).
    static func load(path: String) throws -> DatasetGraph {
        let git = try GitProcess(repository: path)
        defer { git.finish() }
        let refs = try git.run(["for-each-ref", "--format=%(objectname) %(objecttype) %(refname)", "refs/heads"]).output
        let heads = try branchHeads(String(decoding: refs, as: UTF8.self), path: path)
        // Exit 1: HEAD is detached, not a branch.
        let symbolic = try git.run(["symbolic-ref", "-q", "HEAD"], accepting: [0, 1]).output
        let defaultBranch = try self.defaultBranch(
            head: String(decoding: symbolic, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines), heads: heads,
            path: path)
        let tags = try GitRepositoryTags.read(git)
        let key =
            "\(URL(fileURLWithPath: path).standardizedFileURL.path)|\(defaultBranch)|\(String(decoding: refs, as: UTF8.self))|\(tags.refs)"
        if let graph = loaded.withLock({ $0[key] }) { return graph }

        // Children before parents, the order DatasetGraph lists from (and git sends packs in); the
        // commits only a tag reaches (a release branch deleted after tagging) are part of it too.
        let tips = git.scratch.appendingPathComponent("tag-tips")
        try Data(tags.peeledCommits.map { $0 + "\n" }.joined().utf8).write(to: tips)
        let list = try git.run(["rev-list", "--date-order", "--branches", "--stdin"], input: tips).output
        let listFile = git.scratch.appendingPathComponent("commits")
        try list.write(to: listFile)
        let shas = String(decoding: list, as: UTF8.self).split(separator: "\n").map(String.init)
        let batch = try git.run(["cat-file", "--batch"], input: listFile).output
        let (commits, objects) = try readBatch([UInt8](batch), shas: shas, path: path)
        var others = heads
        let defaultHead = others.removeValue(forKey: defaultBranch)!
        let graph: DatasetGraph
        do {
            graph = try DatasetGraph(
                commits: commits, path: path,
                branches: HistoryBranches(defaultBranch: defaultBranch, defaultHead: defaultHead, others: others), objects: objects,
                tags: tags.tags)
        } catch let error as DatasetError {
            throw GitRepositoryError(path: path, reason: error.reason)
        }
        loaded.withLock { $0[key] = graph }
        return graph
    }

    /// `for-each-ref`'s lines: each branch's head, which must be a commit.
    private static func branchHeads(_ lines: String, path: String) throws -> [String: String] {
        var heads: [String: String] = [:]
        for line in lines.split(separator: "\n") {
            let fields = line.split(separator: " ", maxSplits: 2)
            guard fields.count == 3, fields[2].hasPrefix("refs/heads/") else { continue }
            let name = String(fields[2].dropFirst(11))
            guard fields[1] == "commit" else {
                throw GitRepositoryError(path: path, reason: "branch \(name) points at a \(fields[1]) (\(fields[0])), not a commit")
            }
            heads[name] = String(fields[0])
        }
        guard !heads.isEmpty else { throw GitRepositoryError(path: path, reason: "no branches (refs/heads is empty)") }
        return heads
    }

    /// The branch `HEAD` names; when it names none (detached, or a branch without commits), `main`
    /// or the only branch.
    private static func defaultBranch(head: String, heads: [String: String], path: String) throws -> String {
        if head.hasPrefix("refs/heads/"), heads[String(head.dropFirst(11))] != nil { return String(head.dropFirst(11)) }
        if heads["main"] != nil { return "main" }
        if heads.count == 1, let only = heads.keys.first { return only }
        throw GitRepositoryError(
            path: path,
            reason: "HEAD (\(head.isEmpty ? "detached" : head)) names no branch, and there is no main branch to serve by default "
                + "among \(heads.keys.sorted().joined(separator: ", ")); point HEAD at one with git symbolic-ref HEAD refs/heads/NAME")
    }

    /// `cat-file --batch`'s answer: `<sha> commit <size>\n<body>\n` for each of `shas`, in order.
    private static func readBatch(_ bytes: [UInt8], shas: [String], path: String) throws -> ([DatasetCommit], [[UInt8]]) {
        var commits: [DatasetCommit] = []
        var objects: [[UInt8]] = []
        commits.reserveCapacity(shas.count)
        objects.reserveCapacity(shas.count)
        var position = 0
        for sha in shas {
            guard let headerEnd = bytes[position...].firstIndex(of: UInt8(ascii: "\n")) else {
                throw GitRepositoryError(path: path, reason: "git cat-file --batch ended before commit \(sha)")
            }
            let header = String(decoding: bytes[position..<headerEnd], as: UTF8.self)
            let fields = header.split(separator: " ")
            guard fields.count == 3, fields[0] == sha, fields[1] == "commit", let size = Int(fields[2]),
                headerEnd + 1 + size < bytes.count
            else {
                throw GitRepositoryError(path: path, reason: "git cat-file --batch answered \"\(header)\" for commit \(sha)")
            }
            let body = bytes[(headerEnd + 1)..<(headerEnd + 1 + size)]
            do {
                commits.append(try RawCommitObject.datasetCommit(sha: sha, body: body))
            } catch {
                throw GitRepositoryError(path: path, reason: error.reason)
            }
            objects.append(Array(body))
            position = headerEnd + 1 + size + 1
        }
        return (commits, objects)
    }
}
