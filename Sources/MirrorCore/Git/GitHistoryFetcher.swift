import Curl
import Foundation
import GitHash
import GitTrees
import Logging
import Synchronization

/// Reads one branch's commits over git's smart HTTP, protocol version 2, in
/// three requests: the capability advertisement (`info/refs`), `ls-refs` for
/// the branch tip, and a commits-only `fetch` (`filter tree:0`). The pack is
/// spooled to an unlinked temporary file and read back with bounded memory
/// (`PackHistoryReader`); commits reach `deliver` only after the whole pack
/// checked out. See docs/GIT-PROTOCOL.md for what of git's protocol it relies on.
public final class GitHistoryFetcher: Sendable {
    public struct Configuration: Sendable {
        /// The repository's `clone_url` (e.g. `https://github.com/owner/repo.git`).
        public var cloneURL: String
        /// From `GitCredentials.forClone(url:apiURL:token:)`; `nil` sends none.
        public var credentials: GitCredentials?
        public var userAgent = "commits-mirror/\(MirrorVersion.current)"
        /// Where the pack is spooled (the file is unlinked as soon as it is created).
        public var temporaryDirectory = NSTemporaryDirectory()
        /// The largest pack accepted; a longer one fails the fetch.
        public var maximumPackSize = 4 << 30
        public var limits = PackLimits()
        /// Commits per `deliver` call.
        public var batchSize = 1000
        /// The repository's web page, for each commit's `htmlURL` (`<prefix>/commit/<sha>`).
        public var htmlURLPrefix: String?
        /// How fast the pack must come (`GitFetchPace`).
        public var pace = GitFetchPace()
        /// The history's size as the API announced it, for the fetch's deadline.
        public var expectedCommits: Int?
        /// `timeout` bounds the small requests (advertisement, ls-refs); the
        /// pack's request runs until the fetch's deadline instead.
        public var http: HTTPClient.Configuration

        public init(cloneURL: String, credentials: GitCredentials?) {
            self.cloneURL = cloneURL
            self.credentials = credentials
            var http = HTTPClient.Configuration()
            http.timeout = .seconds(120)
            // Bodies that are not streamed (advertisement, ls-refs, errors) are small.
            http.maximumBodySize = 8 << 20
            self.http = http
        }
    }

    public struct Result: Sendable, Equatable {
        /// The branch tip ls-refs announced, which the pack was checked against
        /// (of several branches, the first's).
        public var tip: String
        /// Every branch fetched and its tip, as ls-refs announced them.
        public var tips: [String: String]
        /// Commits delivered: every commit the tip reaches.
        public var commits: Int
        public var packBytes: Int
        /// Pack objects stored as deltas (resolved here).
        public var deltaObjects: Int
        public var requests: Int
        /// The pack was read once while it came (its first pass), not only after.
        public var readWhileArriving = false
    }

    public let configuration: Configuration
    private let http: HTTPClient
    let logger: Logger
    private let parsing = DispatchQueue(label: "commits-mirror.git-pack")

    public init(configuration: Configuration, logger: Logger) throws {
        self.configuration = configuration
        self.http = try HTTPClient(configuration: configuration.http)
        self.logger = logger
    }

    /// The fetch behind both kinds (`GitHistoryFetcher+Fetches.swift`).
    func fetch(
        branches: [String], expectedTips: [String: String], contents: PackContents,
        deliver: @escaping @Sendable ([Commit], [CommitChanges]) throws -> Void
    ) async throws -> Result {
        for branch in branches {
            if let problem = BranchName.problem(with: branch) {
                throw GitError.invalidBranchName(branch, problem: problem)
            }
            // A request line must fit one pkt-line.
            guard branch.utf8.count <= 1024 else { throw GitError.invalidBranchName(branch, problem: "it is over 1024 bytes long") }
        }
        guard !branches.isEmpty else { throw GitError.invalidBranchName("", problem: "no branch was named") }
        guard let origin = APIOrigin(url: configuration.cloneURL) else {
            throw GitError.invalidCloneURL(APIOrigin.displayable(configuration.cloneURL))
        }
        var base = configuration.cloneURL
        while base.hasSuffix("/") { base.removeLast() }
        let allowed = configuration.pace.deadline(expectedCommits: configuration.expectedCommits)
        let deadline = ContinuousClock.now + allowed
        var requests = 0
        let capabilities = try await advertisement(base: &base, origin: origin, requests: &requests)
        let tips = try await lsRefs(base: base, branches: branches, capabilities: capabilities, requests: &requests)
        // lsRefs answered every branch (or threw): each has its tip.
        let ordered = branches.compactMap { branch in tips[branch].map { (branch, $0) } }
        for (branch, tip) in ordered {
            logger.debug(
                "git: branch tip",
                metadata: ["git.url": "\(APIOrigin.displayable(base))", "git.branch": "\(branch)", "git.tip": "\(tip.hex)"])
            if let expectedTip = expectedTips[branch], tip.hex != expectedTip.lowercased() {
                throw GitError.tipDiffers(branch: branch, expected: expectedTip, found: tip.hex)
            }
        }
        var wanted: [ObjectID] = []
        for (_, tip) in ordered where !wanted.contains(tip) { wanted.append(tip) }
        let reader = packHistoryReader(readsChanges: contents == .commitsAndTrees)
        let (storage, firstPass) = try await fetchPack(
            base: base, tips: wanted, filter: contents.filter, reader: reader, capabilities: capabilities,
            deadline: (deadline, allowed), requests: &requests)
        let summary = try await readPack(storage, reader: reader, tips: wanted, firstPass: firstPass, deliver: deliver)
        logger.debug(
            "git: history read",
            metadata: [
                "git.commits": "\(summary.commits)", "git.pack.bytes": "\(storage.byteCount)",
                "git.pack.skipped": "\(summary.skippedObjects)",
                "git.pack.readWhileArriving": "\(summary.firstPassWhileArriving)",
            ])
        return Result(
            tip: ordered.first?.1.hex ?? "", tips: tips.mapValues(\.hex), commits: summary.commits, packBytes: storage.byteCount,
            deltaObjects: summary.deltaObjects, requests: requests, readWhileArriving: summary.firstPassWhileArriving)
    }

    // MARK: - The three requests

    struct Capabilities {
        // A v2 client sends only capabilities the server advertised.
        var sendsAgent: Bool
        var sendsObjectFormat: Bool
    }

    /// `GET info/refs?service=git-upload-pack`; follows redirects within the clone URL's origin. A
    /// listing that fetches no pack passes `requiresFilter: false`.
    func advertisement(
        base: inout String, origin: APIOrigin, requests: inout Int, requiresFilter: Bool = true
    ) async throws -> Capabilities {
        let suffix = "/info/refs?service=git-upload-pack"
        var response: HTTPResponse
        var redirects = 0
        while true {
            let url = base + suffix
            response = try await send(HTTPRequest(url: url, headers: headers()), requests: &requests)
            guard [301, 302, 303, 307, 308].contains(response.status) else { break }
            let location = response.headers["location"] ?? ""
            guard let target = origin.resolve(location, against: url), target.hasSuffix(suffix) else {
                throw GitError.redirectRefused(from: APIOrigin.displayable(url), to: APIOrigin.displayable(location))
            }
            redirects += 1
            guard redirects <= 5 else { throw GitError.tooManyRedirects(url: APIOrigin.displayable(configuration.cloneURL)) }
            base = String(target.dropLast(suffix.count))
        }
        try checkStatus(response, url: base + suffix)
        let shownURL = APIOrigin.displayable(base)
        guard response.headers["content-type"]?.hasPrefix("application/x-git-upload-pack-advertisement") == true else {
            throw GitError.protocolV2Unsupported(url: shownURL)
        }
        var lines = try Self.packetLines(response.body)
        if lines.first?.text?.hasPrefix("# service=") == true {
            // The v0 preamble, which some servers keep before a v2 advertisement.
            guard lines.count >= 2, lines[1] == .flush else { throw GitError.malformedResponse("no flush after the service line") }
            lines.removeFirst(2)
        }
        guard lines.first?.text == "version 2" else { throw GitError.protocolV2Unsupported(url: shownURL) }
        var fetchFeatures: [Substring]?
        var hasLsRefs = false
        var hasAgent = false
        var objectFormat: String?
        for line in lines.dropFirst() {
            guard let text = line.text else { break }
            let (key, value) = text.firstIndex(of: "=").map { (text[..<$0], text[text.index(after: $0)...]) } ?? (text[...], "")
            switch key {
            case "fetch": fetchFeatures = value.split(separator: " ")
            case "ls-refs": hasLsRefs = true
            case "agent": hasAgent = true
            case "object-format": objectFormat = String(value)
            default: break
            }
        }
        guard let fetchFeatures, hasLsRefs else { throw GitError.protocolV2Unsupported(url: shownURL) }
        guard fetchFeatures.contains("filter") || !requiresFilter else { throw GitError.filterUnsupported(url: shownURL) }
        if let objectFormat, objectFormat != "sha1" { throw GitError.unsupportedObjectFormat(objectFormat) }
        return Capabilities(sendsAgent: hasAgent, sendsObjectFormat: objectFormat != nil)
    }

    /// `ls-refs` limited to the branches: each one's tip.
    private func lsRefs(
        base: String, branches: [String], capabilities: Capabilities, requests: inout Int
    ) async throws -> [String: ObjectID] {
        var body = commandHeader("ls-refs", capabilities)
        for branch in Set(branches).sorted() { body.write("ref-prefix refs/heads/\(branch)") }
        body.writeFlush()
        let url = base + "/git-upload-pack"
        let response = try await send(uploadPackRequest(url: url, body: body), requests: &requests)
        try checkStatus(response, url: url)
        let wanted = Set(branches.map { "refs/heads/\($0)" })
        var tips: [String: ObjectID] = [:]
        for line in try Self.packetLines(response.body) {
            guard let text = line.text else { break }
            if text.hasPrefix("ERR ") { throw GitError.remoteError(SideBand.printable(Array(text.utf8).dropFirst(4))) }
            let fields = text.split(separator: " ")
            guard fields.count >= 2 else { throw GitError.malformedResponse("an ls-refs line without a ref name") }
            let ref = String(fields[1])
            guard wanted.contains(ref) else { continue }
            guard let tip = ObjectID(hex: Array(fields[0].utf8)) else {
                throw GitError.malformedResponse("ls-refs gave \(ref) a tip that is not 40 hex digits")
            }
            let branch = String(ref.dropFirst("refs/heads/".count))
            if tips[branch] == nil { tips[branch] = tip }
        }
        if let missing = branches.first(where: { tips[$0] == nil }) { throw GitError.branchNotFound(branch: missing) }
        return tips
    }

    /// `fetch` of the tips' commits (and trees, by `filter`), the response streamed into a spool
    /// file at the pace `configuration.pace` asks, until `deadline`; the pack's
    /// first pass runs on the spool as it fills (nil if it could not finish:
    /// `readPack` then makes it again, and says what is wrong).
    private func fetchPack(
        base: String, tips: [ObjectID], filter: String, reader: PackHistoryReader, capabilities: Capabilities,
        deadline: (at: ContinuousClock.Instant, allowed: Duration), requests: inout Int
    ) async throws -> (FilePackStorage, SendableReceiver<PackHistoryReader.FirstPass>?) {
        var body = commandHeader("fetch", capabilities)
        body.write("no-progress")
        body.write("ofs-delta")
        body.write("filter \(filter)")
        for tip in tips { body.write("want \(tip.hex)") }
        body.write("done")
        body.writeFlush()
        let url = base + "/git-upload-pack"
        let spool = try PackSpoolWriter(directory: configuration.temporaryDirectory, limit: configuration.maximumPackSize)
        let firstPass = startFirstPass(over: spool, reader: reader)
        let receiver = SendableReceiver(
            FetchResponseReceiver(
                spool: spool, watch: FetchPaceWatch(pace: configuration.pace, deadline: deadline.at, allowed: deadline.allowed)))
        var request = uploadPackRequest(url: url, body: body)
        request.timeout = deadline.at - .now
        do {
            let response = try await send(request, requests: &requests) { bytes in
                try receiver.value.receive(bytes)
            }
            try checkStatus(response, url: url)
            let storage = try receiver.value.finish()
            return (storage, await Self.result(of: firstPass))
        } catch {
            // The first pass stops waiting for bytes that will not come.
            spool.arrival.abandon()
            _ = await Self.result(of: firstPass)
            throw error
        }
    }

    /// The first pass's result, cancelled with the task that waits for it (the
    /// pass is a task of its own, which that task's cancellation does not reach).
    private static func result<Pass>(of pass: Task<Pass?, Never>) async -> Pass? {
        await withTaskCancellationHandler {
            await pass.value
        } onCancel: {
            pass.cancel()
        }
    }

    /// The pack's first pass on the spool while the response fills it, on the
    /// parsing queue: the transfer then waits on the server, not on this. Any
    /// failure is nil, left for `readPack` to meet again in the whole pack.
    private func startFirstPass(
        over spool: PackSpoolWriter, reader: PackHistoryReader
    ) -> Task<SendableReceiver<PackHistoryReader.FirstPass>?, Never> {
        guard let storage = try? spool.growingStorage() else { return Task { nil } }
        let work = SendableReceiver((reader, storage))
        let cancelled = CancelFlag()
        return Task {
            await withTaskCancellationHandler {
                await withCheckedContinuation { continuation in
                    parsing.async {
                        let (reader, storage) = work.value
                        let pass = try? reader.firstPass(storage, isCancelled: { cancelled.isSet })
                        continuation.resume(returning: pass.map(SendableReceiver.init))
                    }
                }
            } onCancel: {
                cancelled.set()
            }
        }
    }

    private func packHistoryReader(readsChanges: Bool) -> PackHistoryReader {
        var reader = PackHistoryReader()
        reader.limits = configuration.limits
        reader.batchSize = configuration.batchSize
        reader.htmlURLPrefix = configuration.htmlURLPrefix
        reader.readsChanges = readsChanges
        return reader
    }

    private func readPack(
        _ storage: FilePackStorage, reader: PackHistoryReader, tips: [ObjectID],
        firstPass: SendableReceiver<PackHistoryReader.FirstPass>?, deliver: @escaping @Sendable ([Commit], [CommitChanges]) throws -> Void
    ) async throws -> PackHistoryReader.Summary {
        let cancelled = CancelFlag()
        let work = SendableReceiver((reader, storage, firstPass?.value))
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                parsing.async {
                    let (reader, storage, firstPass) = work.value
                    continuation.resume(
                        with: Swift.Result {
                            try reader.read(
                                storage, tips: tips, firstPass: firstPass, isCancelled: { cancelled.isSet }, deliver: deliver)
                        })
                }
            }
        } onCancel: {
            cancelled.set()
        }
    }

    // MARK: - Request plumbing

    private func headers() -> HTTPHeaders {
        var headers: HTTPHeaders = [("User-Agent", configuration.userAgent), ("Git-Protocol", "version=2")]
        if let credentials = configuration.credentials { headers.add(name: "Authorization", value: credentials.authorization) }
        return headers
    }

    func uploadPackRequest(url: String, body: PacketLineWriter) -> HTTPRequest {
        var headers = headers()
        headers.add(name: "Content-Type", value: "application/x-git-upload-pack-request")
        headers.add(name: "Accept", value: "application/x-git-upload-pack-result")
        return HTTPRequest(url: url, method: "POST", headers: headers, body: body.bytes)
    }

    func commandHeader(_ command: String, _ capabilities: Capabilities) -> PacketLineWriter {
        var body = PacketLineWriter()
        body.write("command=\(command)")
        if capabilities.sendsAgent {
            body.write("agent=\(configuration.userAgent.filter { $0.isASCII && !$0.isWhitespace }.prefix(200))")
        }
        if capabilities.sendsObjectFormat { body.write("object-format=sha1") }
        body.writeDelimiter()
        return body
    }

    func send(
        _ request: HTTPRequest, requests: inout Int,
        streamingBodyTo consumer: (@Sendable (UnsafeRawBufferPointer) throws -> Void)? = nil
    ) async throws -> HTTPResponse {
        requests += 1
        do {
            if let consumer { return try await http.send(request, streamingBodyTo: consumer) }
            return try await http.send(request)
        } catch let error as CurlError {
            if error.isCancellation { throw GitError.cancelled }
            throw GitError.transport(url: APIOrigin.displayable(request.url), detail: error.description)
        }
    }

    func checkStatus(_ response: HTTPResponse, url: String) throws {
        let shown = APIOrigin.displayable(url)
        switch response.status {
        case 200..<300: return
        case 401, 403: throw GitError.accessDenied(url: shown, status: response.status, sentCredentials: configuration.credentials != nil)
        case 404: throw GitError.repositoryNotFound(url: shown)
        case 300..<400: throw GitError.redirectRefused(from: shown, to: APIOrigin.displayable(response.headers["location"] ?? ""))
        default: throw GitError.unexpectedStatus(url: shown, status: response.status)
        }
    }

    private static func packetLines(_ body: [UInt8]) throws -> [PacketLine] {
        var reader = PacketLineReader()
        reader.append(body)
        var lines: [PacketLine] = []
        while let line = try reader.next() { lines.append(line) }
        guard reader.pendingByteCount == 0 else { throw GitError.malformedPacketLine("the response ends inside a pkt-line") }
        return lines
    }
}

/// Hands a value that is not `Sendable` to one other thread: the transfer
/// thread while a request runs, or the parsing queue, never both at once.
private final class SendableReceiver<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}

private final class CancelFlag: Sendable {
    private let flag = Atomic<Bool>(false)
    var isSet: Bool { flag.load(ordering: .relaxed) }
    func set() { flag.store(true, ordering: .relaxed) }
}
