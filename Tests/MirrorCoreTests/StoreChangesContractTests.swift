import Foundation
import MirrorPostgreSQL
import MirrorTestSupport
import Testing

@testable import MirrorCore

/// Changed paths (`Commit.changes`) stored by a history read over git, in the
/// same suite as the rest of the store contract: each test runs on a SQLite file
/// and on a PostgreSQL database, and `show` reads the same changes back from both.
extension StoreContractTests {
    static func side(_ mode: UInt32, _ object: Int) -> FileChange.Side {
        FileChange.Side(mode: mode, objectID: PayloadFixtures.sha(0xb10b_0000 + object))
    }

    static func change(_ path: String, parent: Int = 0, old: FileChange.Side?, new: FileChange.Side?) -> FileChange {
        FileChange(path: Array(path.utf8), parent: parent, old: old, new: new)
    }

    /// A path git may hold that is not UTF-8: `src/` then the byte 0xff.
    static let nonUTF8Path = Array("src/".utf8) + [0xff]

    /// Each commit with its changes, given out of order: stores answer by parent, then path bytes.
    static func commitsWithChanges() -> [Commit] {
        var root = StoreFixtures.commit(1, parents: [])
        root.changes = [
            change("src/a.txt", old: nil, new: side(0o100644, 2)),
            FileChange(path: nonUTF8Path, parent: 0, old: nil, new: side(0o100644, 3)),
            change("README", old: nil, new: side(0o100644, 1)),
        ]
        var second = StoreFixtures.commit(2, parents: [1])
        second.changes = [
            change("tool", old: side(0o100644, 4), new: side(0o120000, 5)),  // T: a file became a symlink
            FileChange(path: nonUTF8Path, parent: 0, old: side(0o100644, 3), new: nil),  // D
            change("README", old: side(0o100644, 1), new: side(0o100755, 6)),  // M: the executable bit
            change("new.txt", old: nil, new: side(0o100644, 7)),  // A
        ]
        var merge = StoreFixtures.commit(3, parents: [2, 9])
        merge.changes = [
            change("b", parent: 1, old: nil, new: side(0o100644, 8)),
            change("README", parent: 1, old: side(0o100644, 9), new: side(0o100755, 6)),
            change("a", parent: 0, old: side(0o100644, 10), new: side(0o100644, 11)),
        ]
        return [merge, second, root]
    }

    static func sortedChanges(_ changes: [FileChange]?) -> [FileChange]? {
        changes?.sorted { $0.parent != $1.parent ? $0.parent < $1.parent : $0.path.lexicographicallyPrecedes($1.path) }
    }

    /// What `show` reads of each commit's changes.
    static func storedChanges(_ location: StoreLocation, _ shas: [Int]) throws -> [[FileChange]?] {
        let reader = try location.openCommitReader()
        return try shas.map { n in
            guard case .found(let detail) = try reader.resolveCommit(PayloadFixtures.sha(n), mailmap: nil) else {
                Issue.record("commit \(n) is not found")
                return nil
            }
            return detail.changes
        }
    }

    @Test(arguments: Backend.allCases)
    func changesReadOverGitAreStoredOnceAndShownByParentThenPathBytes(backend: Backend) async throws {
        let store = try await StoreUnderTest(backend)
        let (repositoryID, _) = try Self.walking(store, head: 3)
        let withChanges = Self.commitsWithChanges()
        let bare = StoreFixtures.commit(4, parents: [3])
        var first = StoreFixtures.commit(5, parents: [4])
        first.changes = [Self.change("first", old: nil, new: Self.side(0o100644, 12))]
        _ = try await store.writer.withBatches(limits: BatchLimits()) {
            try $0.storeFromGit(withChanges + [bare, first], repositoryID: repositoryID)
        }
        #expect(try Self.storedChanges(store.location, [4])[0] == nil, "read without its trees: not known yet")

        // Read again with trees: 4 gets its changes, 5 keeps its first, 6 changed nothing.
        var later = bare
        later.changes = [Self.change("later", old: nil, new: Self.side(0o160000, 13))]
        var again = first
        again.changes = [Self.change("second", old: nil, new: Self.side(0o100644, 14))]
        var empty = StoreFixtures.commit(6, parents: [5])
        empty.changes = []
        _ = try await store.writer.withBatches(limits: BatchLimits()) {
            try $0.storeFromGit([later, again, empty] + withChanges, repositoryID: repositoryID)
        }
        let expected = (withChanges.reversed() + [later, first, empty]).map { Self.sortedChanges($0.changes) }
        #expect(try Self.storedChanges(store.location, [1, 2, 3, 4, 5, 6]) == expected)
        #expect(try Self.storedChanges(store.location, [1])[0]?.map(\.path)[2] == Self.nonUTF8Path, "after src/a.txt")
        #expect(try store.committedCount("SELECT count(*) FROM commit_changes_read") == 6)
        #expect(try store.committedCount("SELECT count(*) FROM paths") == 9, "each path once; second never stored")
        #expect(try store.committedCount("SELECT count(*) FROM paths WHERE id NOT IN (SELECT path_id FROM commit_changes)") == 0)
    }

    @Test(arguments: Backend.allCases)
    func aPurgedCommitsChangesGoWithIt(backend: Backend) async throws {
        let store = try await StoreUnderTest(backend)
        let (repositoryID, _) = try Self.walking(store, head: 3)
        _ = try await store.writer.withBatches(limits: BatchLimits()) {
            try $0.storeFromGit(Self.commitsWithChanges(), repositoryID: repositoryID)
        }
        #expect(try store.committedCount("SELECT count(*) FROM commit_changes") == 10)
        _ = try store.writer.removeAndPurge(repositoryID: repositoryID, reason: "removed by the user", at: Date())
        #expect(try store.committedCount("SELECT count(*) FROM commits") == 0)
        #expect(try store.committedCount("SELECT count(*) FROM commit_changes") == 0)
        #expect(try store.committedCount("SELECT count(*) FROM commit_changes_read") == 0)
    }

    @Test func copyStoreCarriesChangesBothWays() async throws {
        let source = try await StoreUnderTest(.sqlite)
        let (repositoryID, _) = try Self.walking(source, head: 3)
        let commits = Self.commitsWithChanges()
        _ = try await source.writer.withBatches(limits: BatchLimits()) {
            try $0.storeFromGit(commits + [StoreFixtures.commit(4, parents: [3])], repositoryID: repositoryID)
        }
        let expected = commits.reversed().map { Self.sortedChanges($0.changes) } + [nil]
        let database = try StoreLocation(try await PostgreSQLServer.shared().createDatabase())
        let directory = try TemporaryDirectory()
        let returned = StoreLocation.sqliteFile(directory.path("returned.sqlite"))
        _ = try StoreTransfer.copy(from: source.location, to: database)
        _ = try StoreTransfer.copy(from: database, to: returned)
        for location in [source.location, database, returned] {
            #expect(try Self.storedChanges(location, [1, 2, 3, 4]) == expected, "\(location)")
        }
        // A path new to the copy takes an id after the copied ones.
        let writer = try database.openSyncWriter()
        let copied = try writer.adopt(StoreFixtures.identity, requestedAs: StoreFixtures.identity.fullName)
        var next = StoreFixtures.commit(5, parents: [4])
        next.changes = [Self.change("after-copy", old: nil, new: Self.side(0o100644, 15))]
        _ = try await writer.withBatches(limits: BatchLimits()) { try $0.storeFromGit([next], repositoryID: copied.id) }
        #expect(try Self.storedChanges(database, [5]) == [next.changes])
    }
}
