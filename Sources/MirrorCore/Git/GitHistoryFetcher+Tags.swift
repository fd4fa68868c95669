import Curl
import GitHash
import Logging
import MirrorModel
import Synchronization

extension GitHistoryFetcher {
    /// Every tag of the repository, in two requests: the capability advertisement
    /// and one `ls-refs` with `peel` and `ref-prefix refs/tags/` (docs/GIT-PROTOCOL.md).
    ///
    /// A line with `peeled:<id>` is an annotated tag whose commit is that id; any
    /// other is lightweight, its commit the ref's own target. ls-refs never says
    /// an object's type, so a lightweight tag of a tree or a blob (or an annotated
    /// one ending at one) reads as a tag of a commit with that id: the sync checks
    /// that the commit exists before it relies on it. Annotations are not read here.
    ///
    /// The answer is parsed as it arrives. A tag whose name git would refuse, whose
    /// ids are not 40 hex digits, that is listed twice or whose line carries an
    /// attribute ls-refs does not send is skipped and reported in `skipped`; a line
    /// that is not an ls-refs line at all fails the listing.
    /// - Throws: `GitError` for the server and the protocol, `TagListingError` past `limits`.
    public func listTags(limits: TagLimits = TagLimits()) async throws -> TagListing {
        guard let origin = APIOrigin(url: configuration.cloneURL) else {
            throw GitError.invalidCloneURL(APIOrigin.displayable(configuration.cloneURL))
        }
        var base = configuration.cloneURL
        while base.hasSuffix("/") { base.removeLast() }
        var requests = 0
        let capabilities = try await advertisement(base: &base, origin: origin, requests: &requests, requiresFilter: false)
        var body = commandHeader("ls-refs", capabilities)
        body.write("peel")
        body.write("ref-prefix refs/tags/")
        body.writeFlush()
        let url = base + "/git-upload-pack"
        let stream = TagRefStream(limits: limits)
        let response = try await send(uploadPackRequest(url: url, body: body), requests: &requests) { bytes in
            try stream.receive(bytes)
        }
        try checkStatus(response, url: url)
        var listing = try stream.finish()
        listing.requests = requests
        logger.debug(
            "git: tags listed",
            metadata: [
                "git.url": "\(APIOrigin.displayable(base))", "git.tags": "\(listing.tags.count)",
                "git.tags.skipped": "\(listing.skipped.count)",
            ])
        return listing
    }
}

/// The `ls-refs` answer read pkt-line by pkt-line as the transfer delivers it,
/// so a huge listing is refused at its limit, never held whole.
private final class TagRefStream: Sendable {
    private struct State {
        var reader = PacketLineReader()
        var builder: TagListBuilder
        var bytes = 0
        var ended = false
    }

    private let limits: TagLimits
    private let state: Mutex<State>

    init(limits: TagLimits) {
        self.limits = limits
        state = Mutex(State(builder: TagListBuilder(limits: limits)))
    }

    func receive(_ bytes: UnsafeRawBufferPointer) throws {
        try state.withLock { state in
            state.bytes += bytes.count
            guard state.bytes <= limits.maximumBytes else { throw TagListingError.tooLarge(limit: limits.maximumBytes) }
            state.reader.append(bytes)
            while let line = try state.reader.next() {
                switch line {
                case .flush, .responseEnd:
                    state.ended = true
                case .delimiter:
                    throw GitError.malformedResponse("a delim packet in the ls-refs answer")
                case .data(let payload):
                    guard !state.ended else { throw GitError.malformedResponse("data after the end of the ls-refs answer") }
                    try Self.read(payload, into: &state.builder)
                }
            }
        }
    }

    func finish() throws -> TagListing {
        try state.withLock { state in
            guard state.reader.pendingByteCount == 0 else { throw GitError.malformedPacketLine("the response ends inside a pkt-line") }
            guard state.ended else { throw GitError.malformedResponse("the ls-refs answer ends without a flush") }
            return state.builder.listing
        }
    }

    /// One `<oid> <refname>[ <attribute>]…` line; refs outside `refs/tags/` are ignored.
    private static func read(_ payload: [UInt8], into builder: inout TagListBuilder) throws {
        let line = payload.last == 0x0A ? payload.dropLast() : payload[...]
        if line.starts(with: Array("ERR ".utf8)) { throw GitError.remoteError(SideBand.printable(line.dropFirst(4))) }
        let fields = line.split(separator: 0x20, omittingEmptySubsequences: false)
        guard fields.count >= 2 else { throw GitError.malformedResponse("an ls-refs line without a ref name") }
        let prefix = Array("refs/tags/".utf8)
        guard fields[1].starts(with: prefix) else { return }
        let nameBytes = fields[1].dropFirst(prefix.count)
        guard let name = String(validating: nameBytes, as: UTF8.self) else {
            return try builder.skipUnreadable(String(decoding: nameBytes, as: UTF8.self), "its name is not UTF-8")
        }
        var peeled: String?
        for attribute in fields.dropFirst(2) {
            let text = String(decoding: attribute, as: UTF8.self)
            guard text.hasPrefix("peeled:"), peeled == nil else {
                let shown = SideBand.printable(attribute.prefix(60))
                return try builder.skipUnreadable(name, "its ls-refs line carries '\(shown)', which git sends for no tag")
            }
            peeled = String(text.dropFirst("peeled:".count))
        }
        let object = String(decoding: fields[0], as: UTF8.self)
        try builder.add(name: name, object: object, commit: peeled ?? object, isAnnotated: peeled != nil)
    }
}
