import Foundation
import GitHash
import MirrorTestSupport
import Testing

@testable import MirrorCore

/// The pack's first pass made on the spool while the pack is still coming
/// (`GrowingPackStorage`): it finds what a pass over the whole pack finds,
/// waits for bytes not yet written, gives up when the download does, and is
/// used only when its objects end at the whole pack's trailer.
@Suite struct PackFirstPassTests {
    // The pack index is the SQLite backend's, registered as each executable does.
    init() { TestStoreDrivers.register() }

    /// A chain of commits, each with a body long enough that the pack spans
    /// several of the spool's writes to its file.
    static func chain(_ count: Int, salt: String = "") -> (bytes: [UInt8], tip: ObjectID) {
        var pack = PackBuilder()
        var parent: String?
        for n in 0..<count {
            let body = PackBuilder.commit(
                parents: parent.map { [$0] } ?? [],
                message: "commit \(n)\(salt)\n\n" + String(repeating: "a line of its body, \(n)\n", count: 8))
            pack.entries.append(.whole(type: 1, body: body))
            parent = PackBuilder.id(type: "commit", body)
        }
        return (pack.build().bytes, ObjectID(hex: parent!)!)
    }

    static func delivered(
        _ storage: any PackStorage, tip: ObjectID, firstPass: PackHistoryReader.FirstPass? = nil
    ) throws -> (shas: [String], summary: PackHistoryReader.Summary) {
        var shas: [String] = []
        let summary = try PackHistoryReader().read(storage, tips: [tip], firstPass: firstPass) { shas += $0.map(\.sha) }
        return (shas, summary)
    }

    /// The first pass on a thread of its own, as on the fetcher's parsing queue.
    final class FirstPassRun: @unchecked Sendable {
        private var result: Result<PackHistoryReader.FirstPass, any Error>?
        private let done = DispatchSemaphore(value: 0)

        init(_ storage: GrowingPackStorage) {
            // Handed to that thread alone.
            nonisolated(unsafe) let storage = storage
            Thread.detachNewThread { [self] in
                result = Result { try PackHistoryReader().firstPass(storage, isCancelled: { false }) }
                done.signal()
            }
        }

        func value() throws -> PackHistoryReader.FirstPass {
            done.wait()
            return try result!.get()
        }
    }

    @Test func aPassOverThePackAsItComesIsThePassOverTheWholePack() throws {
        let directory = try TemporaryDirectory()
        let (bytes, tip) = Self.chain(8_000)
        #expect(bytes.count > 4 << 18, "the pack should span several writes to the spool file")
        let spool = try PackSpoolWriter(directory: directory.url.path, limit: 1 << 30)
        let pass = FirstPassRun(try spool.growingStorage())
        for start in stride(from: 0, to: bytes.count, by: 7_777) {
            try spool.write(bytes[start..<min(start + 7_777, bytes.count)])
        }
        let whole = try spool.finish()
        let firstPass = try pass.value()
        #expect(firstPass.objectsEnd == bytes.count - 20)

        let reused = try Self.delivered(whole, tip: tip, firstPass: firstPass)
        let again = try Self.delivered(MemoryPackStorage(bytes: bytes), tip: tip)
        #expect(reused.summary.firstPassWhileArriving && !again.summary.firstPassWhileArriving)
        #expect(reused.shas.count == 8_000 && reused.shas == again.shas)
    }

    @Test func theReaderWaitsForBytesAndStopsWhenTheDownloadDoes() throws {
        let directory = try TemporaryDirectory()
        let (bytes, _) = Self.chain(8_000)
        let spool = try PackSpoolWriter(directory: directory.url.path, limit: 1 << 30)
        let pass = FirstPassRun(try spool.growingStorage())
        try spool.write(bytes[0..<(bytes.count / 2)])
        Thread.sleep(forTimeInterval: 0.2)
        spool.arrival.abandon()
        #expect(throws: GitError.cancelled) { try pass.value() }
    }

    /// A first pass whose objects did not end at this pack's trailer (another
    /// pack's, or a pack with bytes after its objects) is made again.
    @Test func aFirstPassThatEndsElsewhereIsMadeAgain() throws {
        let directory = try TemporaryDirectory()
        let (other, _) = Self.chain(40, salt: " of another pack")
        let spool = try PackSpoolWriter(directory: directory.url.path, limit: 1 << 30)
        let pass = FirstPassRun(try spool.growingStorage())
        try spool.write(other)
        _ = try spool.finish()
        let stale = try pass.value()

        let (bytes, tip) = Self.chain(30)
        let read = try Self.delivered(MemoryPackStorage(bytes: bytes), tip: tip, firstPass: stale)
        #expect(!read.summary.firstPassWhileArriving)
        #expect(read.shas == (try Self.delivered(MemoryPackStorage(bytes: bytes), tip: tip)).shas && read.shas.count == 30)
    }
}
