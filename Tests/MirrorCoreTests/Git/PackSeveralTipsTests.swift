import GitHash
import MirrorTestSupport
import Testing

@testable import MirrorCore

/// One pack, several branches (issue #29): the tips' histories are handed on together, each commit
/// once however many tips reach it, parents first, an unrelated history included, and every tip
/// must be in the pack.
@Suite struct PackSeveralTipsTests {
    // The pack index is the SQLite backend's, registered as each executable does.
    init() { TestStoreDrivers.register() }

    static let shared = PackBuilder.commit(parents: [PackBuilder.rootID], message: "shared\n")
    static let sharedID = PackBuilder.id(type: "commit", shared)
    static let mainTip = PackBuilder.commit(parents: [sharedID], message: "main\n")
    static let mainID = PackBuilder.id(type: "commit", mainTip)
    static let releaseTip = PackBuilder.commit(parents: [sharedID], message: "release\n")
    static let releaseID = PackBuilder.id(type: "commit", releaseTip)
    static let pagesRoot = PackBuilder.commit(message: "unrelated gh-pages\n")
    static let pagesID = PackBuilder.id(type: "commit", pagesRoot)

    /// Newest first, as git writes a pack.
    static let entries: [PackBuilder.Entry] = [
        .whole(type: 1, body: mainTip), .whole(type: 1, body: releaseTip), .whole(type: 1, body: pagesRoot),
        .whole(type: 1, body: shared), .whole(type: 1, body: PackBuilder.root),
    ]

    func read(tips: [String], entries: [PackBuilder.Entry] = entries) throws -> [String] {
        var pack = PackBuilder()
        pack.entries = entries
        var delivered: [String] = []
        _ = try PackHistoryReader().read(MemoryPackStorage(bytes: pack.build().bytes), tips: tips.map { ObjectID(hex: $0)! }) {
            delivered += $0.map(\.sha)
        }
        return delivered
    }

    /// Whether every commit comes after its parents that were delivered.
    func parentsFirst(_ order: [String]) -> Bool {
        let parents = [Self.sharedID: [PackBuilder.rootID], Self.mainID: [Self.sharedID], Self.releaseID: [Self.sharedID]]
        return order.enumerated().allSatisfy { index, sha in
            (parents[sha] ?? []).allSatisfy { parent in order.firstIndex(of: parent).map { $0 < index } ?? true }
        }
    }

    @Test func everyTipsHistoryOnceParentsFirstAnUnrelatedOneIncluded() throws {
        let both = try read(tips: [Self.mainID, Self.releaseID])
        #expect(Set(both) == [PackBuilder.rootID, Self.sharedID, Self.mainID, Self.releaseID] && both.count == 4)
        #expect(parentsFirst(both), "\(both)")
        let all = try read(tips: [Self.releaseID, Self.pagesID, Self.mainID, Self.mainID])
        #expect(Set(all) == [PackBuilder.rootID, Self.sharedID, Self.mainID, Self.releaseID, Self.pagesID] && all.count == 5)
        #expect(parentsFirst(all), "\(all)")
        #expect(try read(tips: [Self.releaseID]) == [PackBuilder.rootID, Self.sharedID, Self.releaseID], "one tip: only its history")
        // A pack not written newest first is ordered by Kahn's algorithm: the same set, parents first.
        let reordered = try read(tips: [Self.mainID, Self.releaseID, Self.pagesID], entries: Self.entries.reversed())
        #expect(Set(reordered) == Set(all) && reordered.count == 5 && parentsFirst(reordered), "\(reordered)")
    }

    @Test func aTipNotInThePackIsRefused() {
        let withoutRelease = Self.entries.filter {
            if case .whole(_, let body) = $0 { return body != Self.releaseTip }
            return true
        }
        #expect(throws: GitError.tipMissing(tip: Self.releaseID)) {
            _ = try read(tips: [Self.mainID, Self.releaseID], entries: withoutRelease)
        }
    }
}
