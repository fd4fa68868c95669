import GitHash
import Testing
import MirrorTestSupport

@testable import MirrorCore

/// What the pack's commits must prove before any is handed on.
@Suite struct PackHistoryReaderTests {
    // The pack index is the SQLite backend's, registered as each executable does.
    init() { TestStoreDrivers.register() }

    static let child = PackBuilder.commit(parents: [PackBuilder.rootID], message: "child\n")
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
            [.whole(type: 1, body: Self.child), .whole(type: 1, body: PackBuilder.root)], tip: Self.childID, batchSize: 1)
        #expect(batches.map { $0.map(\.sha) } == [[PackBuilder.rootID], [Self.childID]])
        #expect(summary == .init(commits: 2, packObjects: 2, skippedObjects: 0, deltaObjects: 0))
        #expect(batches[1][0].parents == [PackBuilder.rootID])
        #expect(batches[1][0].message == "child")
    }

    /// Commits whose content was changed hash to other names: the announced tip is not among them.
    @Test func aTipTheCommitsDoNotHashToIsRefused() {
        var tampered = Self.child
        tampered[tampered.count - 2] = 0x21  // one byte of the message changed
        #expect(throws: GitError.tipMissing(tip: Self.childID)) {
            _ = try read([.whole(type: 1, body: tampered), .whole(type: 1, body: PackBuilder.root)], tip: Self.childID)
        }
    }

    @Test func aMissingParentIsRefusedBeforeDelivery() {
        var delivered = 0
        var pack = PackBuilder()
        pack.entries = [.whole(type: 1, body: Self.child)]
        #expect(throws: GitError.parentMissing(commit: Self.childID, parent: PackBuilder.rootID)) {
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
                .whole(type: 1, body: PackBuilder.root),
            ],
            tip: Self.childID)
        #expect(batches.flatMap { $0 }.map(\.sha) == [PackBuilder.rootID, Self.childID])
        #expect(summary.skippedObjects == 2)
    }

    @Test func aMalformedCommitAnywhereStopsEverything() {
        let broken = Array("tree nothex\n\nmessage".utf8)
        var delivered = 0
        var pack = PackBuilder()
        pack.entries = [.whole(type: 1, body: Self.child), .whole(type: 1, body: PackBuilder.root), .whole(type: 1, body: broken)]
        #expect(throws: GitError.self) {
            _ = try PackHistoryReader().read(MemoryPackStorage(bytes: pack.build().bytes), tip: ObjectID(hex: Self.childID)!) {
                delivered += $0.count
            }
        }
        #expect(delivered == 0)
    }

    @Test func aCommitTwiceIsRefused() {
        #expect(throws: GitError.malformedPack("commit \(PackBuilder.rootID) appears twice")) {
            _ = try read([.whole(type: 1, body: PackBuilder.root), .whole(type: 1, body: PackBuilder.root)], tip: PackBuilder.rootID)
        }
    }

    /// A pack need not list children first (git usually does): parents still come first.
    @Test func parentsComeFirstWhateverThePackOrder() throws {
        let (batches, _) = try read([.whole(type: 1, body: PackBuilder.root), .whole(type: 1, body: Self.child)], tip: Self.childID)
        #expect(batches.flatMap { $0 }.map(\.sha) == [PackBuilder.rootID, Self.childID])
    }

    /// Merges, an octopus, a second root and a parent named twice, in several
    /// pack orders (newest first as git writes, oldest first, shuffled): every
    /// commit of the tip's history exactly once, each after all its parents.
    @Test(arguments: [0, 1, 2, 3, 4])
    func aBranchyHistoryInAnyPackOrder(seed: UInt64) throws {
        var random = SplitMix(seed: seed)
        var bodies: [[UInt8]] = []
        var ids: [String] = []
        for index in 0..<400 {
            var parents: [String] = []
            if index > 0, index != 200 {  // 200: a second root, which 250 merges with 199
                parents.append(ids[index - 1])
                if index == 250 { parents.append(ids[199]) }
                let extra = Int.random(in: 0..<10, using: &random)
                if extra == 0, index > 10 { parents.append(ids[Int.random(in: 0..<index - 1, using: &random)]) }
                if extra == 1, index > 10 {
                    parents += (0..<5).map { _ in ids[Int.random(in: 0..<index - 1, using: &random)] }
                }
                if extra == 2 { parents.append(ids[index - 1]) }
            }
            bodies.append(PackBuilder.commit(parents: parents, message: "commit \(index)\n"))
            ids.append(PackBuilder.id(type: "commit", bodies[index]))
        }
        var order = Array(bodies.indices)
        switch seed {
        case 0: order.reverse()
        case 1: break
        default: order.shuffle(using: &random)
        }
        let (batches, summary) = try read(order.map { .whole(type: 1, body: bodies[$0]) }, tip: ids[399], batchSize: 7)
        let delivered = batches.flatMap { $0 }
        let everyCommitOnce = delivered.count == ids.count && Set(delivered.map(\.sha)) == Set(ids)
        #expect(everyCommitOnce)
        #expect(summary.commits == ids.count)
        var seen: Set<String> = []
        for commit in delivered {
            #expect(commit.parents.allSatisfy(seen.contains), "\(commit.sha) came before one of its parents")
            seen.insert(commit.sha)
        }
    }

    /// The tip's history is refused for a missing parent even when the pack is
    /// in no usable order, and extras with missing parents are no reason to refuse.
    @Test func aMissingParentIsFoundInAShuffledPackAndAnExtrasIsNot() throws {
        let orphan = PackBuilder.commit(parents: [String(repeating: "e", count: 40)], message: "extra\n")
        let (batches, _) = try read(
            [.whole(type: 1, body: PackBuilder.root), .whole(type: 1, body: orphan), .whole(type: 1, body: Self.child)], tip: Self.childID)
        #expect(batches.flatMap { $0 }.map(\.sha) == [PackBuilder.rootID, Self.childID])
        let grandchild = PackBuilder.commit(parents: [Self.childID], message: "grandchild\n")
        #expect(throws: GitError.parentMissing(commit: Self.childID, parent: PackBuilder.rootID)) {
            _ = try read(
                [.whole(type: 1, body: Self.child), .whole(type: 1, body: grandchild)], tip: PackBuilder.id(type: "commit", grandchild))
        }
    }

    /// A parent named 20,000 times is one link (and no quadratic work).
    @Test func aParentNamedOverAndOverIsOneLink() throws {
        let child = PackBuilder.commit(parents: Array(repeating: PackBuilder.rootID, count: 20_000), message: "child\n")
        let childID = PackBuilder.id(type: "commit", child)
        let (batches, summary) = try read([.whole(type: 1, body: child), .whole(type: 1, body: PackBuilder.root)], tip: childID)
        #expect(batches.flatMap { $0 }.map(\.sha) == [PackBuilder.rootID, childID])
        #expect(summary.commits == 2)
    }

    @Test func aDeliveryErrorIsRethrownAsItIs() throws {
        struct StoreFull: Error, Equatable {}
        var pack = PackBuilder()
        pack.entries = [.whole(type: 1, body: Self.child), .whole(type: 1, body: PackBuilder.root)]
        var reader = PackHistoryReader()
        reader.batchSize = 1
        #expect(throws: StoreFull()) {
            _ = try reader.read(MemoryPackStorage(bytes: pack.build().bytes), tip: ObjectID(hex: Self.childID)!) { _ in throw StoreFull() }
        }
    }
}
