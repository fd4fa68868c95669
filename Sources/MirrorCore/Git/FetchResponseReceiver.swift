/// Reads a protocol v2 `fetch` response as it arrives (gitprotocol-v2(5),
/// "fetch"): sections of pkt-lines until `packfile`, whose side-band-64k
/// packets carry the pack, which goes straight to a spool file. With a
/// `FetchPaceWatch`, a response too slow to be worth waiting for fails.
final class FetchResponseReceiver {
    private enum State {
        /// Before `packfile`: section headers, or the lines of a section to skip.
        case sections(skipping: Bool)
        case packfile
        case finished
    }

    private var reader = PacketLineReader()
    private var state = State.sections(skipping: false)
    private let spool: PackSpoolWriter
    private var watch: FetchPaceWatch?

    init(spool: PackSpoolWriter, watch: FetchPaceWatch? = nil) {
        self.spool = spool
        self.watch = watch
    }

    var isFinished: Bool {
        if case .finished = state { true } else { false }
    }

    func receive(_ bytes: UnsafeRawBufferPointer) throws {
        guard !isFinished else { throw GitError.malformedResponse("data after the end of the packfile section") }
        reader.append(bytes)
        while let packet = try reader.next() {
            try handle(packet)
        }
        // A pack that has come whole is not too slow, however its last window went.
        if !isFinished { try watch?.check() }
    }

    /// The spooled pack, once the response ended properly.
    func finish() throws -> FilePackStorage {
        guard isFinished, reader.pendingByteCount == 0 else {
            throw GitError.malformedResponse("the response ended before the packfile section did")
        }
        return try spool.finish()
    }

    private func handle(_ packet: PacketLine) throws {
        switch (state, packet) {
        case (.packfile, .data(let payload)):
            switch try SideBand.packet(payload) {
            case .pack(let data):
                // git sends empty packets (keep-alives) while it counts and compresses: the pack begins at its first byte.
                if !data.isEmpty { watch?.packBegan() }
                watch?.pack(data.count)
                try spool.write(data)
            case .progress:
                try watch?.progress()
            }
        case (.packfile, .flush), (.packfile, .responseEnd):
            state = .finished
        case (.packfile, .delimiter):
            throw GitError.malformedResponse("a delimiter inside the packfile section")
        case (.sections, .data(let payload)):
            if payload.starts(with: "ERR ".utf8) {
                throw GitError.remoteError(SideBand.printable(payload.dropFirst(4)))
            }
            if case .sections(skipping: true) = state { return }
            switch packet.text {
            case "packfile": state = .packfile
            // Sections this client does not ask for but may be sent; their lines are skipped.
            case "acknowledgments", "shallow-info", "wanted-refs", "packfile-uris": state = .sections(skipping: true)
            default:
                throw GitError.malformedResponse("unexpected section \(SideBand.printable(payload[...]).debugDescription)")
            }
        case (.sections, .delimiter):
            state = .sections(skipping: false)
        case (.sections, .flush), (.sections, .responseEnd):
            throw GitError.malformedResponse("the response ended without a packfile section")
        case (.finished, _):
            throw GitError.malformedResponse("data after the end of the packfile section")
        }
    }
}
