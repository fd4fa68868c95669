import Testing

@testable import MirrorCore

/// What the pack's commits must prove before any is handed on.
@Suite struct PackHistoryReaderTests {
    static let root = PackBuilder.commit(message: "root\n")
    static let rootID = PackBuilder.id(type: "commit", root)
    static let child = PackBuilder.commit(parents: [rootID], message: "child\n")
    static let childID = PackBuilder.id(type: "commit", child)

    func read(_ entries: [PackBuilder.Entry], tip: String, batchSize: Int = 1000) throws -> ([[Commit]], PackHistoryReader.Summary) {
        var pack = PackBuilder()
        pack.entries = entries
        var reader = PackHistoryReader()
        reader.batchSize = batchSize
        var batches: [[Commit]] = []
        let summary = try reader.read(MemoryPackStorage(bytes: pack.build().bytes), tip: ObjectID(hex: tip)!) { batches.append($0) }
        return (batches, summary)
    }

    @Test func theTipsHistoryInBatches() throws {
        let (batches, summary) = try read(
            [.whole(type: 1, body: Self.child), .whole(type: 1, body: Self.root)], tip: Self.childID, batchSize: 1)
        #expect(batches.map { $0.map(\.sha) } == [[Self.rootID], [Self.childID]])
        #expect(summary == .init(commits: 2, packObjects: 2, skippedObjects: 0, deltaObjects: 0))
        #expect(batches[1][0].parents == [Self.rootID])
        #expect(batches[1][0].message == "child")
    }

    /// Commits whose content was changed hash to other names: the announced tip is not among them.
    @Test func aTipTheCommitsDoNotHashToIsRefused() {
        var tampered = Self.child
        tampered[tampered.count - 2] = 0x21  // one byte of the message changed
        #expect(throws: GitError.tipMissing(tip: Self.childID)) {
            _ = try read([.whole(type: 1, body: tampered), .whole(type: 1, body: Self.root)], tip: Self.childID)
        }
    }

    @Test func aMissingParentIsRefusedBeforeDelivery() {
        var delivered = 0
        var pack = PackBuilder()
        pack.entries = [.whole(type: 1, body: Self.child)]
        #expect(throws: GitError.parentMissing(commit: Self.childID, parent: Self.rootID)) {
            _ = try PackHistoryReader().read(MemoryPackStorage(bytes: pack.build().bytes), tip: ObjectID(hex: Self.childID)!) {
                delivered += $0.count
            }
        }
        #expect(delivered == 0)
    }

    /// Extras the tip does not reach (another root, a blob) are not handed on.
    @Test func objectsTheTipDoesNotReachAreLeftOut() throws {
        let stranger = PackBuilder.commit(message: "not in this branch\n")
        let (batches, summary) = try read(
            [
                .whole(type: 1, body: Self.child), .whole(type: 1, body: stranger), .whole(type: 3, body: [1, 2, 3]),
                .whole(type: 1, body: Self.root),
            ],
            tip: Self.childID)
        #expect(batches.flatMap { $0 }.map(\.sha) == [Self.rootID, Self.childID])
        #expect(summary.skippedObjects == 2)
    }

    @Test func aMalformedCommitAnywhereStopsEverything() {
        let broken = Array("tree nothex\n\nmessage".utf8)
        var delivered = 0
        var pack = PackBuilder()
        pack.entries = [.whole(type: 1, body: Self.child), .whole(type: 1, body: Self.root), .whole(type: 1, body: broken)]
        #expect(throws: GitError.self) {
            _ = try PackHistoryReader().read(MemoryPackStorage(bytes: pack.build().bytes), tip: ObjectID(hex: Self.childID)!) {
                delivered += $0.count
            }
        }
        #expect(delivered == 0)
    }

    @Test func aCommitTwiceIsRefused() {
        #expect(throws: GitError.malformedPack("commit \(Self.rootID) appears twice")) {
            _ = try read([.whole(type: 1, body: Self.root), .whole(type: 1, body: Self.root)], tip: Self.rootID)
        }
    }

    @Test func aDeliveryErrorIsRethrownAsItIs() throws {
        struct StoreFull: Error, Equatable {}
        var pack = PackBuilder()
        pack.entries = [.whole(type: 1, body: Self.child), .whole(type: 1, body: Self.root)]
        var reader = PackHistoryReader()
        reader.batchSize = 1
        #expect(throws: StoreFull()) {
            _ = try reader.read(MemoryPackStorage(bytes: pack.build().bytes), tip: ObjectID(hex: Self.childID)!) { _ in throw StoreFull() }
        }
    }
}
