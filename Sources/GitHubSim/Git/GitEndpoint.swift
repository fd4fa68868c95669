// git's smart HTTP, protocol version 2, for synthetic repositories and git repositories on disk
// (docs/GIT-PROTOCOL.md, "What github-sim serves"):
//   GET  /{owner}/{name}.git/info/refs?service=git-upload-pack   the capability advertisement
//   POST /{owner}/{name}.git/git-upload-pack                     ls-refs, fetch (filter tree:0; blob:none from git's own objects)
// Credentials are HTTP Basic with the token as the password (`x-access-token:<token>`), the same
// tokens the API accepts; git requests spend no rate limit.

import Foundation
import NIOCore
import NIOHTTP1

/// `/{owner}/{name}.git/…`: which service of which repository.
struct GitRoute: Equatable {
    enum Service {
        case advertisement, uploadPack
    }

    var owner: String
    var name: String
    var service: Service

    /// nil for every path that is not a git one.
    init?(path: String) {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count >= 4, parts[0].isEmpty, !parts[1].isEmpty, parts[2].hasSuffix(".git"), parts[2].count > 4
        else { return nil }
        switch parts.dropFirst(3).joined(separator: "/") {
        case "info/refs": service = .advertisement
        case "git-upload-pack": service = .uploadPack
        default: return nil
        }
        owner = String(parts[1])
        name = String(parts[2].dropLast(4))
    }
}

enum GitEndpoint {
    static let agent = "git/github-sim"
    static let refusedPassword = "Invalid username or token. Password authentication is not supported for Git operations."

    static func respond(_ request: SimRequest, route: GitRoute, core: SimulatorCore) -> SimResponse {
        let fault = core.currentFaults().git
        let valid: Bool
        var caller = Caller.anonymous
        switch Credentials(basicAuthorization: request.header("Authorization")) {
        case .anonymous: valid = false
        case .token(let token):
            let check = core.acceptsGitPassword(token)
            guard check.accepted else { return unauthorized(Self.refusedPassword) }
            valid = true
            caller = check.caller
        case .malformed:
            return unauthorized(Self.refusedPassword)
        }
        if fault == .unauthorized { return unauthorized("Invalid username or token.") }
        let key = "\(route.owner)/\(route.name)".lowercased()
        // A dataset's objects cannot be rebuilt from JSON: its repository has no git endpoint, and
        // answers as GitHub does for a repository that does not exist (401 without credentials,
        // so as not to tell whether a private one exists; 404 with them).
        guard let repository = core.repositories.first(where: { $0.snapshot.fullName.lowercased() == key }),
            repository.graph == nil || repository.graph?.gitObjects != nil
        else {
            return valid ? notFound() : unauthorized("Repository not found.")
        }
        if repository.isPrivate && !caller.seesPrivate(owner: repository.snapshot.owner) {
            return valid ? notFound() : unauthorized("Repository not found.")
        }
        let v2 = request.header("Git-Protocol")?.split(separator: ":").contains("version=2") == true && fault != .protocolV0Only
        switch route.service {
        case .advertisement:
            guard request.method == .GET else { return notFound() }
            guard request.queryValue("service") == "git-upload-pack" else {
                return plain(.forbidden, "Service not enabled: only git-upload-pack is served\n")
            }
            return v2 ? advertisement() : referenceAdvertisement(repository, hostile: core.currentFaults().hostileTags)
        case .uploadPack:
            guard request.method == .POST else { return notFound() }
            guard v2 else { return packetResponse { $0.writePacketLine("ERR github-sim serves git protocol version 2 only\n") } }
            return uploadPack(request, repository: repository, fault: fault, core: core)
        }
    }

    // MARK: - info/refs

    /// Protocol v2's capability advertisement, after the v0 service line GitHub keeps.
    private static func advertisement() -> SimResponse {
        var body = ByteBuffer()
        body.writePacketLine("# service=git-upload-pack\n")
        body.writeFlush()
        for line in ["version 2", "agent=\(agent)", "ls-refs", "fetch=shallow filter", "object-format=sha1"] {
            body.writePacketLine(line + "\n")
        }
        body.writeFlush()
        return gitResponse(body, contentType: "application/x-git-upload-pack-advertisement")
    }

    /// What a server without protocol v2 answers: the refs with v0 capabilities.
    private static func referenceAdvertisement(_ repository: HostedRepository, hostile: Set<HostileTag>) -> SimResponse {
        var body = ByteBuffer()
        body.writePacketLine("# service=git-upload-pack\n")
        body.writeFlush()
        let capabilities =
            "multi_ack thin-pack side-band side-band-64k ofs-delta shallow no-progress include-tag multi_ack_detailed "
            + "symref=HEAD:refs/heads/\(repository.defaultBranch) filter object-format=sha1 agent=\(agent)"
        let references = refs(repository, hostile: hostile)
        if let first = references.first {
            body.writePacketLine("\(first.sha) \(first.name)\0\(capabilities)\n")
            for reference in references.dropFirst() {
                body.writePacketLine("\(reference.sha) \(reference.name)\n")
                if let peeled = reference.peeled { body.writePacketLine("\(peeled) \(reference.name)^{}\n") }
            }
        } else {
            body.writePacketLine("\(String(repeating: "0", count: 40)) capabilities^{}\0\(capabilities)\n")
        }
        body.writeFlush()
        return gitResponse(body, contentType: "application/x-git-upload-pack-advertisement")
    }

    /// A ref as ls-refs announces it; `peeled` is the commit an annotated tag ends at.
    struct AnnouncedRef {
        var name: String
        var sha: String
        var peeled: String?
    }

    private static func refs(_ repository: HostedRepository, hostile: Set<HostileTag>) -> [AnnouncedRef] {
        let state = repository.snapshot
        guard let graph = repository.graph, let head = state.head else { return [] }
        // HEAD first, then every branch and every tag in refname order, as git sorts them.
        let branches = state.branchHeads.map { AnnouncedRef(name: "refs/heads/\($0.name)", sha: graph.sha(of: $0.node)) }
        let tags = ServedTags(state, graph: graph, hostile: hostile).map { tag in
            AnnouncedRef(name: tag.refName, sha: tag.refTarget, peeled: tag.peeledObject)
        }
        return [AnnouncedRef(name: "HEAD", sha: graph.sha(of: head))] + branches + tags
    }

    // MARK: - git-upload-pack

    private static func uploadPack(_ request: SimRequest, repository: HostedRepository, fault: GitFault?, core: SimulatorCore)
        -> SimResponse
    {
        guard let command = UploadPackCommand(request) else {
            return packetResponse { $0.writePacketLine("ERR github-sim: the request is not a protocol v2 command\n") }
        }
        switch command.name {
        case "ls-refs":
            return lsRefs(command, repository: repository, hostile: core.currentFaults().hostileTags)
        case "fetch":
            return fetch(command, repository: repository, fault: fault, authorization: request.header("Authorization"), core: core)
        default:
            return packetResponse { $0.writePacketLine("ERR unknown command '\(command.name)'\n") }
        }
    }

    private static func lsRefs(_ command: UploadPackCommand, repository: HostedRepository, hostile: Set<HostileTag>) -> SimResponse {
        let prefixes = command.arguments.compactMap { $0.hasPrefix("ref-prefix ") ? String($0.dropFirst(11)) : nil }
        let symrefs = command.arguments.contains("symrefs")
        let peel = command.arguments.contains("peel")
        return packetResponse { body in
            for reference in refs(repository, hostile: hostile) where prefixes.isEmpty || prefixes.contains(where: reference.name.hasPrefix)
            {
                var line = "\(reference.sha) \(reference.name)"
                if symrefs && reference.name == "HEAD" { line += " symref-target:refs/heads/\(repository.defaultBranch)" }
                if peel, let peeled = reference.peeled { line += " peeled:\(peeled)" }
                body.writePacketLine(line + "\n")
            }
            body.writeFlush()
        }
    }

    private static func fetch(
        _ command: UploadPackCommand, repository: HostedRepository, fault: GitFault?, authorization: String?, core: SimulatorCore
    ) -> SimResponse {
        func refuse(_ message: String) -> SimResponse { packetResponse { $0.writePacketLine("ERR \(message)\n") } }
        var wants: [Int] = []
        var wantedTags: [TagObject] = []
        var filter: String?
        var done = false
        var useDeltas = false
        var includeTag = false
        let graph = repository.graph
        let hostile = core.currentFaults().hostileTags
        for argument in command.arguments {
            if argument.hasPrefix("want ") {
                let sha = argument.dropFirst(5)
                if let node = graph?.node(forSHA: sha) {
                    wants.append(node)
                } else if let tag = repository.annotatedTag(objectSHA: sha, hostile: hostile) {
                    // A tag object is sent with the commit it ends at, which git checks it has.
                    wantedTags += tag.objects
                    if let node = tag.peeled.flatMap({ graph?.node(forSHA: $0) }) { wants.append(node) }
                } else {
                    return refuse("upload-pack: not our ref \(sha)")
                }
            } else if argument == "include-tag" {
                includeTag = true
            } else if argument.hasPrefix("filter ") {
                filter = String(argument.dropFirst(7))
            } else if argument == "done" {
                done = true
            } else if argument == "ofs-delta" {
                useDeltas = true
            } else if argument.hasPrefix("deepen") || argument.hasPrefix("shallow ") || argument.hasPrefix("want-ref ") {
                return refuse("github-sim: \(argument.prefix { $0 != " " }) is not served")
            }
            // have, thin-pack, no-progress, sideband-all…: a whole pack answers them all.
        }
        guard let objects = graph?.gitObjects, !wants.isEmpty else { return refuse("github-sim: fetch without a want") }
        // Synthetic and dataset commits name trees that do not exist, so only a repository of git's
        // own objects sends trees; the others answer blob:none as a server holding no trees would.
        let withTrees = filter == "blob:none" && repository.gitRepositoryPath != nil
        guard filter == "tree:0" || filter == "blob:none" else {
            return refuse("github-sim: only 'filter tree:0' and 'filter blob:none' can be served here")
        }
        guard done else {
            // Nothing in common without haves: "NAK", and the client comes back with done.
            return packetResponse { body in
                body.writePacketLine("acknowledgments\n")
                body.writePacketLine("NAK\n")
                body.writeFlush()
            }
        }
        var response = gitResponse(ByteBuffer(), contentType: "application/x-git-upload-pack-result")
        response.body = nil
        if withTrees, let path = repository.gitRepositoryPath {
            // The commits and their trees; tag objects go only with commits-only packs.
            let shas = wants.compactMap { graph?.sha(of: $0) }
            do {
                response.streamedBody = try GitMadePackBody(repository: path, wants: shas, countPackBytes: core.recordPackBytes)
            } catch {
                return refuse("github-sim: \(error)")
            }
            return response
        }
        response.streamedBody = PackResponseBody(
            graph: objects, wants: wants, tags: wantedTags, followedTags: includeTag ? followableTags(repository) : [],
            useDeltas: useDeltas, fault: fault, authorization: authorization, countPackBytes: core.recordPackBytes)
        return response
    }

    /// `include-tag`: every annotated tag with the commit it ends at, sent when the pack has that commit.
    private static func followableTags(_ repository: HostedRepository) -> [(object: TagObject, node: Int)] {
        guard let graph = repository.graph else { return [] }
        return repository.snapshot.sortedTags.flatMap { tag -> [(object: TagObject, node: Int)] in
            guard let node = tag.peeled.flatMap({ graph.node(forSHA: $0) }) else { return [] }
            return tag.objects.map { ($0, node) }
        }
    }

    // MARK: - Responses

    private static func packetResponse(_ write: (inout ByteBuffer) -> Void) -> SimResponse {
        var body = ByteBuffer()
        write(&body)
        return gitResponse(body, contentType: "application/x-git-upload-pack-result")
    }

    private static func gitResponse(_ body: ByteBuffer, contentType: String) -> SimResponse {
        var response = SimResponse(status: .ok, body: body)
        response.headers.add(name: "Content-Type", value: contentType)
        response.headers.add(name: "Cache-Control", value: "no-cache, max-age=0, must-revalidate")
        return response
    }

    private static func plain(_ status: HTTPResponseStatus, _ text: String) -> SimResponse {
        var response = SimResponse(status: status, body: ByteBuffer(string: text))
        response.headers.add(name: "Content-Type", value: "text/plain; charset=utf-8")
        return response
    }

    private static func unauthorized(_ message: String) -> SimResponse {
        var response = plain(.unauthorized, message + "\n")
        response.headers.add(name: "WWW-Authenticate", value: "Basic realm=\"GitHub\"")
        return response
    }

    private static func notFound() -> SimResponse { plain(.notFound, "Repository not found.\n") }
}

/// A protocol v2 request: `command=…`, capability lines, delim, arguments, flush.
struct UploadPackCommand {
    var name: String
    var capabilities: [String]
    var arguments: [String]

    /// Reads the body (gunzipped when `Content-Encoding: gzip`); nil when it is not one command.
    init?(_ request: SimRequest) {
        var bytes = request.body.map { Array($0.readableBytesView) } ?? []
        if request.header("Content-Encoding")?.lowercased() == "gzip" {
            // A command is a few lines; a body that inflates past 1 MB is not one.
            guard let inflated = try? Gzip.decompress(bytes, limit: 1 << 20) else { return nil }
            bytes = inflated
        }
        guard let lines = PacketLine.parse(bytes), let first = lines.first?.text, first.hasPrefix("command=") else { return nil }
        name = String(first.dropFirst(8))
        guard let delimiter = lines.firstIndex(of: .delimiter), let flush = lines.lastIndex(of: .flush), delimiter < flush else {
            return nil
        }
        capabilities = lines[1..<delimiter].compactMap(\.text)
        arguments = lines[(delimiter + 1)..<flush].compactMap(\.text)
    }
}
