import Foundation
import GitHash
import GitTrees
import Synchronization

/// Trees parsed only when a diff asks for them, counting how many it asked for.
final class LazyTrees: Sendable {
    private let contents: [ObjectID: [UInt8]]
    private let parsed = Mutex<[ObjectID: GitTree]>([:])

    init(contents: [ObjectID: [UInt8]]) { self.contents = contents }

    var parsedCount: Int { parsed.withLock { $0.count } }

    func tree(_ id: ObjectID) throws -> GitTree {
        if let known = parsed.withLock({ $0[id] }) { return known }
        guard let bytes = contents[id] else { throw GitFailure.unreadable("no tree \(id) in the repository") }
        let tree = try GitTree(parsing: bytes, id: id)
        parsed.withLock { $0[id] = tree }
        return tree
    }
}

/// Every commit's changes as GitTrees computes them, beside what real git prints for the same repository.
struct GitParity {
    /// Per commit, the `--raw` lines of its first-parent diff.
    var firstParent: [ObjectID: [String]] = [:]
    /// Per merge, the combined `--raw` lines of the paths that differ from every parent.
    var mergePaths: [ObjectID: [String]] = [:]
    var gitFirstParent: [ObjectID: [String]] = [:]
    var gitMergePaths: [ObjectID: [String]] = [:]
    /// Per commit, its changed paths as `--name-only` quotes them.
    var names: [ObjectID: [String]] = [:]
    var gitNames: [ObjectID: [String]] = [:]
    var merges = 0
    var treesParsed = 0
    var treesInRepository = 0
    var diffing: Duration = .zero

    init(of repository: BareRepository) throws {
        let trees = LazyTrees(contents: try repository.treeContents())
        let commits = try repository.commits()
        let treeOf = Dictionary(commits.map { ($0.id, $0.tree) }, uniquingKeysWith: { first, _ in first })
        let clock = ContinuousClock()
        var computed: [(ObjectID, CommitChanges, Bool)] = []
        diffing = try clock.measure {
            for commit in commits {
                let parentTrees = try commit.parents.map { parent in
                    guard let tree = treeOf[parent] else {
                        throw GitFailure.unreadable("no parent \(parent)")
                    }
                    return tree
                }
                computed.append(
                    (commit.id, try CommitChanges(tree: commit.tree, parentTrees: parentTrees, lookup: trees.tree), parentTrees.count > 1))
            }
        }
        for (id, changes, isMerge) in computed {
            firstParent[id] = changes.firstParent.map(\.rawLine)
            names[id] = changes.firstParent.map { GitPathQuoting.quoted($0.path) }
            if isMerge {
                mergePaths[id] = changes.mergePaths.map(\.rawLine)
                merges += 1
            }
        }
        treesParsed = trees.parsedCount
        treesInRepository = try repository.treeContents().count
        let log = ["log", "--all", "--no-renames", "--no-abbrev", "--format=%H"]
        gitFirstParent = try Self.byCommit(repository.lines(log + ["--raw", "--diff-merges=first-parent"]))
        gitMergePaths = try Self.byCommit(repository.lines(log + ["--raw", "--cc", "--merges"]))
        gitNames = try Self.byCommit(repository.lines(log + ["--name-only", "--diff-merges=first-parent"]))
    }

    /// Git's output split at each commit's `%H` line; every other non-empty line belongs to the commit above it.
    static func byCommit(_ lines: [String]) throws -> [ObjectID: [String]] {
        var result: [ObjectID: [String]] = [:]
        var current: ObjectID?
        for line in lines where !line.isEmpty {
            if line.count == 40, let id = ObjectID(hex: line) {
                current = id
                result[id, default: []] += []
            } else if let current {
                result[current, default: []].append(line)
            } else {
                throw GitFailure.unreadable("a line before any commit: \(line)")
            }
        }
        return result
    }
}
