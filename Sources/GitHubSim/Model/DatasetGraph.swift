// A real history loaded from a dataset file, or from a git repository (GitRepositoryGraph.swift),
// whose commits come in the same order. Small enough (thousands of commits) to hold whole.

import Foundation
import Synchronization

final class DatasetGraph: CommitGraph {
    /// Graphs already built in this process, keyed by path, size and modification time: test
    /// suites start many simulators on the same file, and the graph is immutable.
    private static let loaded = Mutex<[String: DatasetGraph]>([:])

    static func load(path: String) throws -> DatasetGraph {
        let attributes = try? FileManager.default.attributesOfItem(atPath: path)
        let size = (attributes?[.size] as? NSNumber)?.int64Value ?? -1
        let modified = (attributes?[.modificationDate] as? Date)?.timeIntervalSince1970 ?? -1
        let key = "\(path)|\(size)|\(modified)"
        if let graph = loaded.withLock({ $0[key] }) { return graph }
        let graph = try DatasetGraph(commits: Dataset.load(path: path), path: path)
        loaded.withLock { $0[key] = graph }
        return graph
    }

    private let records: [CommitRecord]
    private let times: [Int64]
    /// Parents present in the file, as nodes (file positions).
    private let parentNodes: [[Int32]]
    /// First parent as a node, or -1 when there is none or it is not in the file.
    private let firstParents: [Int32]
    private let nodesBySHA: [String: Int32]
    /// The first-parent chain from the default branch's original head, head first.
    private let chain: [Int32]
    /// Position of each node on `chain`, or -1.
    private let chainPosition: [Int32]
    /// Full listings per start node; each costs a graph walk, and clients page through them.
    private let listings = Mutex<[Int: [Int32]]>([:])

    /// The raw commit objects by node, when the history came from git (a dataset has none).
    private let objects: [[UInt8]]?

    let initialHead: Int
    let initialBranches: [String: Int]
    let defaultBranchName: String?
    let initialTags: [GitTag]
    let cachesRenderedElements = true
    var gitObjects: (any GitObjectGraph)? { objects == nil ? nil : self }

    /// - Parameters:
    ///   - commits: children before parents (`git log --date-order`, `git rev-list --date-order`).
    ///   - branches: where the branches start; nil for a dataset, whose first commit is the head.
    ///   - objects: each commit's raw object, by position, when the history came from git.
    ///   - tags: the repository's tags, when the history came from git.
    init(
        commits: [DatasetCommit], path: String, branches: HistoryBranches? = nil, objects: [[UInt8]]? = nil, tags: [GitTag] = []
    ) throws {
        var nodesBySHA = [String: Int32](minimumCapacity: commits.count)
        for (node, commit) in commits.enumerated() {
            nodesBySHA[commit.sha.lowercased()] = Int32(node)
        }
        func node(ofBranch name: String, head sha: String) throws -> Int {
            guard let node = nodesBySHA[sha.lowercased()] else {
                throw DatasetError(path: path, line: nil, reason: "branch \(name)'s head \(sha) is not among the commits")
            }
            return Int(node)
        }
        let head = try branches.map { try node(ofBranch: $0.defaultBranch, head: $0.defaultHead) } ?? 0
        initialHead = head
        var initialBranches = [String: Int]()
        for (name, sha) in branches?.others ?? [:] { initialBranches[name] = try node(ofBranch: name, head: sha) }
        self.initialBranches = initialBranches
        defaultBranchName = branches?.defaultBranch
        self.objects = objects
        initialTags = tags
        var users = [String: SimUser?]()
        func person(_ p: DatasetPerson, line: Int) throws -> (PersonRecord, Int64) {
            guard let time = Timestamp.parseISO8601(p.date) else {
                throw DatasetError(path: path, line: line, reason: "unparseable date \"\(p.date)\"")
            }
            let user: SimUser?
            if let known = users[p.email] {
                user = known
            } else {
                user = SimUser.derived(fromEmail: p.email)
                users[p.email] = user
            }
            return (PersonRecord(name: p.name, email: p.email, date: Timestamp.iso8601UTC(time), user: user), time)
        }
        var records = [CommitRecord]()
        var times = [Int64]()
        var parentNodes = [[Int32]]()
        var firstParents = [Int32]()
        records.reserveCapacity(commits.count)
        for (node, commit) in commits.enumerated() {
            let (author, _) = try person(commit.author, line: node + 1)
            let (committer, time) = try person(commit.committer, line: node + 1)
            var message = Substring(commit.message)
            while message.last == "\n" || message.last == "\r\n" { message.removeLast() }
            records.append(
                CommitRecord(
                    sha: commit.sha.lowercased(), parents: commit.parents.map { $0.lowercased() },
                    tree: commit.tree.lowercased(), author: author, committer: committer, message: String(message)))
            times.append(time)
            parentNodes.append(commit.parents.compactMap { nodesBySHA[$0.lowercased()] })
            firstParents.append(commit.parents.first.flatMap { nodesBySHA[$0.lowercased()] } ?? -1)
        }
        var chain = [Int32]()
        var chainPosition = [Int32](repeating: -1, count: commits.count)
        var node = Int32(head)
        while node >= 0, chainPosition[Int(node)] < 0 {
            chainPosition[Int(node)] = Int32(chain.count)
            chain.append(node)
            node = firstParents[Int(node)]
        }
        self.records = records
        self.times = times
        self.parentNodes = parentNodes
        self.firstParents = firstParents
        self.nodesBySHA = nodesBySHA
        self.chain = chain
        self.chainPosition = chainPosition
    }

    func node(forSHA sha: some StringProtocol) -> Int? {
        nodesBySHA[sha.lowercased()].map(Int.init)
    }

    func sha(of node: Int) -> String { records[node].sha }
    func committerTime(of node: Int) -> Int64 { times[node] }
    func record(of node: Int) -> CommitRecord { records[node] }

    func firstParent(of node: Int) -> Int? {
        firstParents[node] >= 0 ? Int(firstParents[node]) : nil
    }

    func firstParentSuccessor(of node: Int) -> Int? {
        let position = Int(chainPosition[node])
        return position > 0 ? Int(chain[position - 1]) : nil
    }

    func listing(from start: Int, since: Int64?, until: Int64?) -> CommitListing {
        let full = reachable(from: start)
        guard since != nil || until != nil else { return .nodes(full[...]) }
        let lower = since ?? .min
        let upper = until ?? .max
        return .nodes(full.filter { (lower...upper).contains(times[Int($0)]) }[...])
    }

    /// Nodes reachable from `start`, in file order. The file is `git log --date-order` (a git
    /// repository's list `git rev-list --date-order`), which never shows a parent before its
    /// children, so the file order restricted to a subset is still valid and every reachable node
    /// comes at or after `start`.
    private func reachable(from start: Int) -> [Int32] {
        if let cached = listings.withLock({ $0[start] }) { return cached }
        var seen = [Bool](repeating: false, count: records.count)
        var stack = [Int32(start)]
        seen[start] = true
        while let node = stack.popLast() {
            for parent in parentNodes[Int(node)] where !seen[Int(parent)] {
                seen[Int(parent)] = true
                stack.append(parent)
            }
        }
        let result = (start..<records.count).lazy.filter { seen[$0] }.map { Int32($0) }
        let listing = Array(result)
        listings.withLock { cache in
            if cache.count >= 64 { cache.removeAll() }
            cache[start] = listing
        }
        return listing
    }
}

/// The branches a history starts with, by head sha: a git repository's refs.
struct HistoryBranches: Sendable {
    var defaultBranch: String
    var defaultHead: String
    /// The other branches' heads by name.
    var others: [String: String]
}

extension DatasetGraph: GitObjectGraph {
    func commitObject(of node: Int) -> [UInt8] { objects?[node] ?? [] }
    func parents(of node: Int) -> [Int] { parentNodes[node].map(Int.init) }
    var nodeOrder: GitNodeOrder { .childrenFirst(count: records.count) }
}
