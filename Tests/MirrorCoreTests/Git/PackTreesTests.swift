import GitHash
import GitTrees
import MirrorTestSupport
import Testing

@testable import MirrorCore

/// A pack read with its trees: each commit's changes come from trees the pack holds, and a missing or malformed
/// tree stops the read with the commit it was needed for named, after the batches before it.
@Suite struct PackTreesTests {
    init() { TestStoreDrivers.register() }

    /// A tree object's bytes: entries of (mode, name, id) as given, in that order.
    static func tree(_ entries: [(String, String, String)]) -> [UInt8] {
        entries.flatMap { mode, name, id in Array("\(mode) \(name)\0".utf8) + ObjectID(hex: id)!.digest }
    }

    static let blobA = String(repeating: "1", count: 40)
    static let blobB = String(repeating: "2", count: 40)
    static let rootTree = tree([("100644", "a.txt", blobA)])
    static let childTree = tree([("100644", "a.txt", blobB), ("100755", "b.sh", blobA)])

    static func commits(childTree: [UInt8]) -> (root: [UInt8], child: [UInt8], childID: String) {
        let root = PackBuilder.commit(tree: PackBuilder.id(type: "tree", rootTree), message: "root\n")
        let child = PackBuilder.commit(
            tree: PackBuilder.id(type: "tree", childTree), parents: [PackBuilder.id(type: "commit", root)], message: "child\n")
        return (root, child, PackBuilder.id(type: "commit", child))
    }

    func read(_ entries: [PackBuilder.Entry], tip: String) throws -> [(String, [String])] {
        var pack = PackBuilder()
        pack.entries = entries
        var reader = PackHistoryReader()
        reader.readsChanges = true
        reader.batchSize = 1
        var delivered: [(String, [String])] = []
        _ = try reader.read(MemoryPackStorage(bytes: pack.build().bytes), tips: [ObjectID(hex: tip)!]) { commits, changes in
            #expect(commits.count == changes.count)
            delivered += zip(commits, changes).map { ($0.sha, $1.firstParent.map(\.rawLine)) }
        }
        return delivered
    }

    @Test func eachCommitComesWithItsChanges() throws {
        let (root, child, childID) = Self.commits(childTree: Self.childTree)
        let delivered = try read(
            [
                .whole(type: 1, body: child), .whole(type: 1, body: root), .whole(type: 2, body: Self.childTree),
                .whole(type: 2, body: Self.rootTree),
            ],
            tip: childID)
        #expect(delivered.map(\.0) == [PackBuilder.id(type: "commit", root), childID])
        #expect(delivered[0].1 == [":000000 100644 \(ObjectID.zero) \(Self.blobA) A\ta.txt"])
        #expect(
            delivered[1].1 == [
                ":100644 100644 \(Self.blobA) \(Self.blobB) M\ta.txt", ":000000 100755 \(ObjectID.zero) \(Self.blobA) A\tb.sh",
            ])
    }

    @Test func aMissingTreeNamesTheCommitAfterTheBatchesBefore() throws {
        let (root, child, childID) = Self.commits(childTree: Self.childTree)
        var pack = PackBuilder()
        pack.entries = [.whole(type: 1, body: child), .whole(type: 1, body: root), .whole(type: 2, body: Self.rootTree)]
        var reader = PackHistoryReader()
        reader.readsChanges = true
        reader.batchSize = 1
        var delivered: [String] = []
        let missing = GitError.treeMissing(tree: PackBuilder.id(type: "tree", Self.childTree), commit: childID)
        #expect(throws: missing) {
            _ = try reader.read(MemoryPackStorage(bytes: pack.build().bytes), tips: [ObjectID(hex: childID)!]) { commits, _ in
                delivered += commits.map(\.sha)
            }
        }
        #expect(delivered == [PackBuilder.id(type: "commit", root)])
        #expect(!missing.description.contains("\n"))
    }

    /// A tree that hashes to its name but breaks git's rules (entries out of order) is refused, naming the commit.
    @Test func aMalformedTreeIsRefused() throws {
        let unsorted = Self.tree([("100755", "b.sh", Self.blobA), ("100644", "a.txt", Self.blobB)])
        let (root, child, childID) = Self.commits(childTree: unsorted)
        #expect {
            _ = try read(
                [
                    .whole(type: 1, body: child), .whole(type: 1, body: root), .whole(type: 2, body: unsorted),
                    .whole(type: 2, body: Self.rootTree),
                ],
                tip: childID)
        } throws: { error in
            guard case .badTree(.unsorted, let commit) = error as? GitError else { return false }
            return commit == childID && !"\(error)".contains("\n")
        }
    }

    /// Without `readsChanges` the same pack's trees are skipped and no changes are worked out.
    @Test func aCommitsOnlyReadIgnoresTrees() throws {
        let (root, child, childID) = Self.commits(childTree: Self.childTree)
        var pack = PackBuilder()
        pack.entries = [.whole(type: 1, body: child), .whole(type: 1, body: root)]
        var counts: [Int] = []
        _ = try PackHistoryReader().read(MemoryPackStorage(bytes: pack.build().bytes), tips: [ObjectID(hex: childID)!]) {
            _, changes in counts.append(changes.count)
        }
        #expect(counts == [0])
    }
}
