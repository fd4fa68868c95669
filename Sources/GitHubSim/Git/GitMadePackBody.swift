// The `packfile` section of a fetch response whose pack git itself makes: for a fetch of a git
// repository on disk with `filter blob:none` (commits and their trees, no file contents), which
// only git's own objects can answer, since synthetic commits name trees that do not exist.

import Foundation
import NIOCore

final class GitMadePackBody: StreamedBody, @unchecked Sendable {
    // @unchecked: the server pulls chunks from the one event loop of the connection, in order.

    private let file: FileHandle
    private let countPackBytes: @Sendable (Int) -> Void
    private var started = false
    private var ended = false

    /// Runs `git pack-objects --revs --filter=blob:none` in the repository at `path` for the wants,
    /// into an unlinked temporary file the body then streams (so a large pack is never in memory).
    /// git runs before the response starts, on the request's thread: a simulator's trade, simpler
    /// than streaming a child process, which a large repository's fetch waits on.
    init(repository path: String, wants: [String], countPackBytes: @escaping @Sendable (Int) -> Void) throws {
        let git = try GitProcess(repository: path)
        defer { git.finish() }
        let input = git.scratch.appendingPathComponent("wants")
        try Data(wants.map { $0 + "\n" }.joined().utf8).write(to: input)
        let pack = git.scratch.appendingPathComponent("pack")
        _ = try git.run(["pack-objects", "--revs", "--stdout", "--filter=blob:none", "-q"], input: input, output: pack)
        file = try FileHandle(forReadingFrom: pack)
        self.countPackBytes = countPackBytes
    }

    func nextChunk() -> ByteBuffer? {
        var out = ByteBuffer()
        guard !ended else { return nil }
        if !started {
            started = true
            out.writePacketLine("packfile\n")
        }
        let data = (try? file.read(upToCount: PackResponseBody.chunkBytes)) ?? nil
        guard let data, !data.isEmpty else {
            ended = true
            try? file.close()
            out.writeFlush()
            return out
        }
        out.writeSideBand(1, [UInt8](data)[...])
        countPackBytes(data.count)
        return out
    }
}
