import Foundation
@testable import GitTrees
import GitHash
import Testing

/// The diff's shape on small trees: what it reports, and which trees it never needs to read.
@Suite struct TreeDiffTests {
    private func paths(_ changes: [TreeChange]) -> [String] {
        changes.map { "\($0.status.letter) \(String(decoding: $0.path, as: UTF8.self))" }
    }

    @Test func unchangedSubtreesAreNeverLookedUp() throws {
        let store = TreeStore()
        let big = try store.add([("100644", "untouched", TreeStore.blob(1))])
        let small = try store.add([("100644", "x", TreeStore.blob(2))])
        let smallAfter = try store.add([("100644", "x", TreeStore.blob(3))])
        let before = try store.add([("100644", "a", TreeStore.blob(4)), ("40000", "big", big), ("40000", "small", small)])
        let after = try store.add([("100644", "a", TreeStore.blob(5)), ("40000", "big", big), ("40000", "small", smallAfter)])
        let changes = try TreeDiff.changes(from: before, to: after, lookup: store.lookup)
        #expect(paths(changes) == ["M a", "M small/x"])
        #expect(store.lookedUp == [before, after, small, smallAfter])
        #expect(try TreeDiff.changes(from: after, to: after, lookup: store.lookup).isEmpty)
    }

    @Test func aFileReplacedByADirectoryIsADeletionPlusAdditions() throws {
        let store = TreeStore()
        let directory = try store.add([("100644", "inner", TreeStore.blob(1)), ("100755", "run", TreeStore.blob(2))])
        let before = try store.add([("100644", "x", TreeStore.blob(3)), ("100644", "x.c", TreeStore.blob(3))])
        let after = try store.add([("100644", "x.c", TreeStore.blob(3)), ("40000", "x", directory)])
        #expect(paths(try TreeDiff.changes(from: before, to: after, lookup: store.lookup)) == ["D x", "A x/inner", "A x/run"])
        #expect(paths(try TreeDiff.changes(from: after, to: before, lookup: store.lookup)) == ["A x", "D x/inner", "D x/run"])
    }

    @Test func typeChangesAreToldFromModeChanges() throws {
        let store = TreeStore()
        let before = try store.add([
            ("100644", "exec", TreeStore.blob(1)), ("100644", "link", TreeStore.blob(1)), ("100644", "module", TreeStore.blob(1)),
        ])
        let after = try store.add([
            ("100755", "exec", TreeStore.blob(1)), ("120000", "link", TreeStore.blob(1)), ("160000", "module", TreeStore.blob(9)),
        ])
        let changes = try TreeDiff.changes(from: before, to: after, lookup: store.lookup)
        #expect(paths(changes) == ["M exec", "T link", "T module"])
        #expect(changes.map(\.rawLine).first == ":100644 100755 \(TreeStore.blob(1)) \(TreeStore.blob(1)) M\texec")
    }

    @Test func aRootCommitAddsEverything() throws {
        let store = TreeStore()
        let sub = try store.add([("100644", "f", TreeStore.blob(1))])
        let root = try store.add([("100644", "a", TreeStore.blob(2)), ("40000", "d", sub)])
        let changes = try CommitChanges(tree: root, parentTrees: [], lookup: store.lookup)
        #expect(paths(changes.firstParent) == ["A a", "A d/f"])
        #expect(changes.mergePaths.isEmpty)
    }

    /// A merge's other parents are read only where a path of the first-parent diff lies.
    @Test func aMergeReadsOtherParentsOnlyWhereItsFirstParentDiffers() throws {
        let store = TreeStore()
        let library = try store.add([("100644", "l", TreeStore.blob(1))])
        let libraryOnTheSide = try store.add([("100644", "l", TreeStore.blob(2))])
        let first = try store.add([("100644", "a", TreeStore.blob(3)), ("100644", "b", TreeStore.blob(3)), ("40000", "lib", library)])
        let second = try store.add([
            ("100644", "a", TreeStore.blob(4)), ("100644", "b", TreeStore.blob(5)), ("40000", "lib", libraryOnTheSide),
        ])
        let merged = try store.add([("100644", "a", TreeStore.blob(6)), ("100644", "b", TreeStore.blob(5)), ("40000", "lib", library)])
        let changes = try CommitChanges(tree: merged, parentTrees: [first, second], lookup: store.lookup)
        #expect(paths(changes.firstParent) == ["M a", "M b"])
        #expect(changes.mergePaths.map(\.path) == [Array("a".utf8)])
        #expect(changes.mergePaths.first?.changes.map(\.old?.id) == [TreeStore.blob(3), TreeStore.blob(4)])
        #expect(!store.lookedUp.contains(libraryOnTheSide))
    }

    @Test func aTreeThatContainsItselfIsRefused() {
        let loop = ObjectID(hashingObject: Array("loop".utf8), type: "tree")
        let other = ObjectID(hashingObject: Array("other".utf8), type: "tree")
        let trees = [
            loop: GitTree(id: loop, entries: [TreeEntry(kind: .tree, name: Array("down".utf8), id: other)]),
            other: GitTree(id: other, entries: [TreeEntry(kind: .tree, name: Array("up".utf8), id: loop)]),
        ]
        #expect(throws: TreeError.containsItself(tree: loop, path: Array("down/up".utf8))) {
            try TreeDiff.changes(from: nil, to: loop, lookup: { trees[$0]! })
        }
    }

    @Test func aLookupAnsweringWithAnotherTreeIsRefused() throws {
        let store = TreeStore()
        let asked = ObjectID(hashingObject: Array("asked".utf8), type: "tree")
        let answered = try store.add([("100644", "a", TreeStore.blob(1))])
        #expect(throws: TreeError.idMismatch(expected: asked, actual: answered)) {
            try TreeDiff.changes(from: nil, to: asked, lookup: { _ in try store.lookup(answered) })
        }
    }

    /// Deeper than the limit is refused; the walk keeps its own stack, so the
    /// default depth passes on a test thread's small stack.
    @Test func treesDeeperThanTheLimitAreRefused() throws {
        let store = TreeStore()
        var tree = try store.add([("100644", "f", TreeStore.blob(1))])
        for _ in 0..<5000 { tree = try store.add([("40000", "d", tree)]) }
        let limit = TreeLimits.default.maximumDepth
        let started = ContinuousClock.now
        do {
            let changes = try TreeDiff.changes(from: nil, to: tree, lookup: store.lookup)
            Issue.record("accepted \(changes.count) changes")
        } catch let error as TreeError {
            guard case .tooDeep(let path, limit) = error else { Issue.record("refused as \(error)"); return }
            // The first directory past the limit, `d/d/…/d`, is refused.
            #expect(path.count == (limit + 1) * 2 - 1)
        }
        #expect(ContinuousClock.now - started < .seconds(30))
        let shallow = TreeLimits(maximumEntries: 10, maximumBytes: 1 << 10, maximumDepth: 5000, maximumChanges: 10)
        #expect(try TreeDiff.changes(from: nil, to: tree, limits: shallow, lookup: store.lookup).count == 1)
    }

    /// Trees that name one subtree many times multiply their paths; the diff stops at its limit.
    @Test func aDiffOverItsLimitOfChangesIsRefused() throws {
        let store = TreeStore()
        var tree = try store.add((0..<10).map { (mode: "100644", name: "f\($0)", id: TreeStore.blob($0)) })
        for _ in 0..<4 { tree = try store.add((0..<10).map { (mode: "40000", name: "d\($0)", id: tree) }) }
        let limits = TreeLimits(maximumEntries: 100, maximumBytes: 1 << 12, maximumDepth: 10, maximumChanges: 5000)
        #expect(throws: TreeError.tooManyChanges(limit: 5000)) {
            try TreeDiff.changes(from: nil, to: tree, limits: limits, lookup: store.lookup)
        }
    }
}
