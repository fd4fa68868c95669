import MirrorTestSupport
import Foundation
import Testing
@testable import MirrorCore
@testable import MirrorSQLite

/// A store path that is a FIFO, directory or device is refused before SQLite
/// opens it: nothing blocks and nothing is created beside it.
@Suite struct StorePathKindTests {
    let directory: TemporaryDirectory
    init() throws { directory = try TemporaryDirectory() }

    @Test func fileKindsAreFoundWithoutOpening() throws {
        let fifo = directory.path("fifo")
        try makeFIFO(fifo)
        let file = try directory.write("file", "12345")
        try FileManager.default.createSymbolicLink(atPath: directory.path("link"), withDestinationPath: file)
        #expect(FileKind.of(fifo) == .fifo)
        #expect(FileKind.of(directory.url.path) == .directory)
        #expect(FileKind.of("/dev/null") == .characterDevice)
        #expect(FileKind.of(file) == .regularFile(size: 5))
        #expect(FileKind.of(directory.path("link")) == .regularFile(size: 5), "links are followed")
        #expect(FileKind.of(directory.path("absent")) == .missing)
        #expect(FileKind.of(file + "/below-a-file") == .missing)
    }

    @Test(arguments: StoreSide.allCases)
    func aFIFOIsRefusedWithoutBlocking(access: StoreSide) async throws {
        let fifo = directory.path("store.fifo")
        try makeFIFO(fifo)
        let message = await withDeadline(.seconds(5), unblock: { releaseFIFOReader(fifo) }) { openMessage(fifo, access) }
        #expect(message == .some("the store path \(fifo) is a FIFO (named pipe), not a store file"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path) == ["store.fifo"], "nothing created beside it")
    }

    @Test(arguments: StoreSide.allCases)
    func devicesAndDirectoriesAreRefused(access: StoreSide) throws {
        #expect(openMessage("/dev/null", access) == "the store path /dev/null is a character device, not a store file")
        #expect(!FileManager.default.fileExists(atPath: "/dev/null-journal") && !FileManager.default.fileExists(atPath: "/dev/null-wal"))
        #expect(openMessage(directory.url.path, access) == "the store path \(directory.url.path) is a directory, not a store file")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path).isEmpty)
    }

    @Test func anEmptyPathIsRefused() {
        #expect(openMessage("", .writer) == "the store path is empty")
    }

    @Test func aMissingPathAndASymlinkToAStoreStillOpen() throws {
        let path = directory.path("new/commits.sqlite")
        _ = try MirrorStore(path: path)
        try FileManager.default.createSymbolicLink(atPath: directory.path("link.sqlite"), withDestinationPath: path)
        _ = try MirrorReader(path: directory.path("link.sqlite"))
    }
}

private func openMessage(_ path: String, _ access: StoreSide) -> String? {
    do {
        try access.open(path)
        return nil
    } catch {
        return "\(error)"
    }
}
