import Foundation
import GitHash
import GitTrees
import Testing

/// Every tree git would not write is refused, with the error naming why, in one line and bounded time.
@Suite struct HostileTreeTests {
    @Test func anHonestTreeParses() throws {
        let tree = try TreeBytes.parse(TreeBytes.tree([("100644", "a"), ("40000", "a-dir"), ("100644", "a.c"), ("120000", "b")]))
        #expect(tree.entries.map(\.kind) == [.file, .tree, .file, .symlink])
        #expect(tree.entries.map { String(decoding: $0.name, as: UTF8.self) } == ["a", "a-dir", "a.c", "b"])
        #expect(GitTree.empty.id.description == "4b825dc642cb6eb9a060e54bf8d69288fbee4904")
    }

    @Test func aForgedIDIsRefused() {
        let bytes = TreeBytes.tree([("100644", "a")])
        let claimed = ObjectID(hex: String(repeating: "ab", count: 20))!
        #expect(throws: TreeError.idMismatch(expected: claimed, actual: ObjectID(hashingObject: bytes, type: "tree"))) {
            try GitTree(parsing: bytes, id: claimed)
        }
    }

    @Test func entriesOutOfGitsOrderAreRefused() {
        #expect(throws: TreeError.self) { try TreeBytes.parse(TreeBytes.tree([("100644", "b"), ("100644", "a")])) }
        // A directory sorts as if its name ended in `/`: `a.c` comes before the directory `a`, after the file `a`.
        #expect(throws: Never.self) { try TreeBytes.parse(TreeBytes.tree([("100644", "a.c"), ("40000", "a")])) }
        expectRefusal(TreeBytes.tree([("40000", "a"), ("100644", "a.c")])) { if case .unsorted = $0 { true } else { false } }
    }

    @Test func duplicateNamesAreRefusedEvenWhenNotAdjacent() {
        expectRefusal(TreeBytes.tree([("100644", "a"), ("100755", "a")])) { if case .duplicateName = $0 { true } else { false } }
        expectRefusal(TreeBytes.tree([("100644", "a"), ("100644", "a.c"), ("40000", "a")])) {
            if case .duplicateName(_, let name) = $0 { name == Array("a".utf8) } else { false }
        }
    }

    @Test(arguments: [".", "..", ".git", ".GIT", ".Git"])
    func reservedNamesAreRefused(name: String) {
        expectRefusal(TreeBytes.tree([("40000", name)])) { if case .reservedName = $0 { true } else { false } }
    }

    @Test func namesWithASlashOrEmptyAreRefused() {
        expectRefusal(TreeBytes.tree([("100644", "a/b")])) { if case .badName = $0 { true } else { false } }
        expectRefusal(TreeBytes.tree([("100644", "")])) { if case .badName = $0 { true } else { false } }
    }

    /// A NUL ends a name, so a name holding one leaves its tail where the id
    /// should be, and the entry's last bytes where the next entry should start.
    @Test func aNameWithANULIsRefused() {
        expectRefusal(TreeBytes.tree([(mode: "100644", name: Array("a\0b".utf8), id: TreeBytes.blob)])) {
            if case .truncated = $0 { true } else { false }
        }
    }

    @Test(arguments: ["100666", "040000", "10644", "", "644", "1006440", "160001", "4O000"])
    func modesGitDoesNotWriteAreRefused(mode: String) {
        expectRefusal(TreeBytes.tree([(mode, "a")])) {
            if case .badMode = $0 { true } else { false }
        }
    }

    /// Early git wrote group-writable files; fsck accepts them unless `--strict`, and git reads them as `100644`.
    @Test func theLegacyGroupWritableModeReadsAsAFile() throws {
        #expect(try TreeBytes.parse(TreeBytes.tree([("100664", "a")])).entries.map(\.kind) == [.file])
    }

    @Test func truncatedEntriesAreRefused() {
        let whole = TreeBytes.tree([("100644", "a"), ("100644", "b")])
        for length in [1, 7, 9, whole.count / 2 + 3, whole.count - 1] {
            expectRefusal(Array(whole.prefix(length))) { if case .truncated = $0 { true } else { false } }
        }
    }

    @Test func tooManyEntriesOrBytesAreRefused() {
        let names = (0..<11).map { (mode: "100644", name: "f\($0 + 10)") }
        let limits = TreeLimits(maximumEntries: 10, maximumBytes: 1 << 20, maximumDepth: 8, maximumChanges: 100)
        expectRefusal(TreeBytes.tree(names), limits: limits) { if case .tooManyEntries = $0 { true } else { false } }
        let small = TreeLimits(maximumEntries: 100, maximumBytes: 64, maximumDepth: 8, maximumChanges: 100)
        expectRefusal(TreeBytes.tree(names), limits: small) { if case .tooLarge = $0 { true } else { false } }
    }

    /// A million entries is over the default limits, and is refused before its bytes are even hashed.
    @Test func aMillionEntryTreeIsRefusedQuickly() {
        var bytes: [UInt8] = []
        let entry = Array("100644 ".utf8)
        let id = TreeBytes.blob.digest
        bytes.reserveCapacity(1_000_000 * 36)
        for index in 0..<1_000_000 {
            bytes += entry
            bytes += Array(String(index + 1_000_000).utf8)
            bytes.append(0)
            bytes += id
        }
        let started = ContinuousClock.now
        expectRefusal(bytes) { if case .tooLarge = $0 { true } else { false } }
        #expect(ContinuousClock.now - started < .seconds(10))
    }

    @Test func everyRefusalIsOneLine() {
        let tree = ObjectID(hex: String(repeating: "0", count: 39) + "1")!
        let errors: [TreeError] = [
            .badName(tree: tree, name: Array("a\nb".utf8)), .badName(tree: tree, name: []), .badMode(tree: tree, mode: "1\n"),
            .unsorted(tree: tree, name: [0xff, 10]), .tooDeep(path: Array("a/b".utf8), limit: 2), .tooManyChanges(limit: 3),
        ]
        for error in errors {
            #expect(!error.description.contains("\n"), "\(error)")
            #expect(error.description.contains("tree") || error.description.contains("diff"), "\(error)")
        }
    }

    private func expectRefusal(
        _ bytes: [UInt8], limits: TreeLimits = .default, sourceLocation: SourceLocation = #_sourceLocation,
        _ matches: (TreeError) -> Bool
    ) {
        do {
            let tree = try TreeBytes.parse(bytes, limits: limits)
            Issue.record("accepted \(tree.entries.count) entries", sourceLocation: sourceLocation)
        } catch {
            #expect(matches(error), "refused as \(error)", sourceLocation: sourceLocation)
        }
    }
}
