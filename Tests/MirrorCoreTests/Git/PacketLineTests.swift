import MirrorTestSupport
import Testing

@testable import MirrorCore
import Foundation

@Suite struct PacketLineTests {
    func packets(_ text: String, chunk: Int = .max) throws -> [PacketLine] {
        var reader = PacketLineReader()
        var packets: [PacketLine] = []
        let bytes = Array(text.utf8)
        var index = 0
        while index < bytes.count {
            let end = min(bytes.count, index + chunk)
            reader.append(Array(bytes[index..<end]))
            index = end
            while let packet = try reader.next() { packets.append(packet) }
        }
        #expect(reader.pendingByteCount == 0)
        return packets
    }

    @Test func specialPacketsAndData() throws {
        #expect(
            try packets("000eversion 2\n0001" + "0008abcd" + "00020000") == [
                .data(Array("version 2\n".utf8)), .delimiter, .data(Array("abcd".utf8)), .responseEnd, .flush,
            ])
        #expect(PacketLine.data(Array("version 2\n".utf8)).text == "version 2")
    }

    /// A packet split over any number of deliveries reads the same.
    @Test func splitDeliveries() throws {
        let text = "000eversion 2\n0009abcde00010004" + "0000"
        let whole = try packets(text)
        #expect(whole == [.data(Array("version 2\n".utf8)), .data(Array("abcde".utf8)), .delimiter, .data([]), .flush])
        for chunk in 1...7 {
            #expect(try packets(text, chunk: chunk) == whole)
        }
    }

    @Test(arguments: ["zzzz", "000g", "0003", "fff1", "ffff", "-001", " 001"])
    func badLengthsAreErrors(_ prefix: String) {
        var reader = PacketLineReader()
        reader.append(Array((prefix + "data").utf8))
        #expect(throws: GitError.self) { try reader.next() }
    }

    @Test func largestPacketIsAccepted() throws {
        let payload = [UInt8](repeating: 0x41, count: PacketLine.maximumLength - 4)
        var reader = PacketLineReader()
        reader.append(Array("fff0".utf8) + payload)
        #expect(try reader.next() == .data(payload))
        reader.append(Array("FFF0".utf8))  // upper-case hex, as git's own reader accepts
        #expect(try reader.next() == nil)
        #expect(reader.pendingByteCount == 4)
    }

    @Test func writerFramesLines() {
        var writer = PacketLineWriter()
        writer.write("command=fetch")
        writer.writeDelimiter()
        writer.write("done")
        writer.writeFlush()
        #expect(String(decoding: writer.bytes, as: UTF8.self) == "0012command=fetch\n00010009done\n0000")
    }

    @Test func sideBandBands() throws {
        #expect(try SideBand.packet([1, 9, 8]) == .pack([9, 8]))
        #expect(try SideBand.packet([1]) == .pack([]), "a keep-alive")
        #expect(try SideBand.packet([2] + Array("Counting objects".utf8)) == .progress)
        #expect(throws: GitError.remoteError("upload-pack: not our ref")) {
            try SideBand.packet([3] + Array("upload-pack: not our ref\n".utf8))
        }
        #expect(throws: GitError.self) { try SideBand.packet([]) }
        #expect(throws: GitError.self) { try SideBand.packet([4, 1]) }
    }

    /// The fetch response reader: sections skipped, pack bytes spooled, and an early end noticed.
    @Test func fetchResponseSections() throws {
        let directory = try TemporaryDirectory()
        func receive(_ text: [UInt8]) throws -> [UInt8] {
            let receiver = FetchResponseReceiver(spool: try PackSpoolWriter(directory: directory.url.path, limit: 1 << 20))
            try text.withUnsafeBytes { try receiver.receive($0) }
            let storage = try receiver.finish()
            var bytes = [UInt8](repeating: 0, count: storage.byteCount)
            _ = try bytes.withUnsafeMutableBytes { try storage.read(at: 0, into: $0) }
            return bytes
        }
        let pack: [UInt8] =
            Array("0011shallow-info\n".utf8) + Array("0035shallow 0123456789012345678901234567890123456789\n".utf8)
            + Array("0001000dpackfile\n".utf8) + Array("0008\u{1}PAC".utf8) + Array("0009\u{2}prog".utf8) + Array("0006\u{1}K".utf8)
            + Array("0000".utf8)
        #expect(try receive(pack) == Array("PACK".utf8))
        #expect(throws: GitError.self) { try receive(Array("000dpackfile\n0006\u{1}K".utf8)) }
        #expect(throws: GitError.remoteError("access denied")) { try receive(Array("0015ERR access denied".utf8)) }
        #expect(throws: GitError.self) { try receive(Array("000dpackfile\n0006\u{3}X0000".utf8)) }
        #expect(throws: GitError.self) { try receive(Array("0000".utf8)) }
    }

    @Test func spoolIsBounded() throws {
        let directory = try TemporaryDirectory()
        let spool = try PackSpoolWriter(directory: directory.url.path, limit: 10)
        try spool.write([UInt8](repeating: 1, count: 10))
        #expect(throws: GitError.packTooLarge(limit: 10)) { try spool.write([1]) }
    }
}
