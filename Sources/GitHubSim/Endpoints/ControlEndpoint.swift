// /_sim/…: steering a simulator that runs as a separate process. Not counted, not rate-limited.
//   GET  /_sim/stats                          SimStats as JSON
//   POST /_sim/reset-stats
//   POST /_sim/repos/{o}/{r}/head?back=N      (or ?forward=N) → {"head":"<sha>"}; with a webhook
//                                             configured, a moved head is delivered as a signed push
//   POST /_sim/faults                         body: FaultPlan fields, delay as delayMilliseconds,
//                                             git as a GitFault name ("truncated-pack", …),
//                                             branchListingOmits as an array of branch names,
//                                             holdAccessTokens true to leave every token mint unanswered,
//                                             hostileTags / hostilePulls as arrays of names ("tree", …)
//   POST /_sim/repos/{o}/{r}?commits=N[&seed=S][&tagEvery=K][&fork=true][&archived=true][&private=true]
//                                             starts serving a new synthetic repository → {"id":N}
//   DELETE /_sim/repos/{o}/{r}                stops serving it (404 from then on)
//   POST /_sim/repos/{o}/{r}/branch?name=B&at=SHA   points branch B (not the default) at a commit of
//                                             the history: creates, moves or force-pushes it → {"head":"<sha>"}
//   POST /_sim/repos/{o}/{r}/branch?name=B&back=N   (or &forward=N) moves B along first parents,
//                                             as /head does; a new B starts at the default head
//   DELETE /_sim/repos/{o}/{r}/branch?name=B  deletes branch B
//   POST /_sim/repos/{o}/{r}/default-branch?name=B   renames the default branch to B (same head)
//   POST /_sim/repos/{o}/{r}/tag?name=T&at=SHA[&message=M]   creates or moves tag T: lightweight, or
//                                             annotated with message M → {"ref":"<sha>"}, the tag
//                                             object's id for an annotated tag
//   DELETE /_sim/repos/{o}/{r}/tag?name=T     deletes tag T
//   POST /_sim/repos/{o}/{r}/pulls…           opens, edits, closes, reopens pull requests
//                                             (ControlEndpoint+Pulls.swift)

import Foundation
import NIOCore
import NIOHTTP1

enum ControlEndpoint {
    static func respond(_ request: SimRequest, core: SimulatorCore) -> SimResponse {
        let parts = request.path.split(separator: "/").dropFirst()  // drop "_sim"
        switch (request.method, Array(parts)) {
        case (.GET, ["stats"]):
            let encoder = JSONEncoder()
            encoder.outputFormatting = .sortedKeys
            guard let data = try? encoder.encode(core.stats()) else { return .error(.internalServerError, "cannot encode stats") }
            return .json(.ok, ByteBuffer(bytes: data))
        case (.POST, ["reset-stats"]):
            core.resetStats()
            return ok()
        case (.POST, let path) where path.count == 4 && path[0] == "repos" && path[3] == "head":
            return moveHead(request, owner: String(path[1]), name: String(path[2]), core: core)
        case (.POST, let path) where path.count == 4 && path[0] == "repos" && path[3] == "default-branch":
            guard let branch = request.queryValue("name"), !branch.isEmpty else { return .error(.badRequest, "expected ?name=BRANCH") }
            do {
                try core.renameDefaultBranch(owner: String(path[1]), name: String(path[2]), to: branch)
                return ok()
            } catch {
                return .error(.unprocessableEntity, "\(error)")
            }
        case (let method, let path) where path.count == 4 && path[0] == "repos" && path[3] == "branch":
            return branch(request, method: method, owner: String(path[1]), name: String(path[2]), core: core)
        case (_, let path) where path.count >= 4 && path[0] == "repos" && path[3] == "pulls":
            return pulls(request, path: path, core: core)
        case (let method, let path) where path.count == 4 && path[0] == "repos" && path[3] == "tag":
            return tag(request, method: method, owner: String(path[1]), name: String(path[2]), core: core)
        case (.POST, let path) where path.count == 3 && path[0] == "repos":
            return addRepository(request, owner: String(path[1]), name: String(path[2]), core: core)
        case (.DELETE, let path) where path.count == 3 && path[0] == "repos":
            do {
                try core.delete(owner: String(path[1]), name: String(path[2]))
                return ok()
            } catch {
                return .error(.notFound, "\(error)")
            }
        case (.POST, ["faults"]):
            do {
                core.setFaults(try faultPlan(from: request.body))
                return ok()
            } catch {
                return .error(.badRequest, "\(error)")
            }
        default:
            return .notFound()
        }
    }

    private static func ok() -> SimResponse { .json(.ok, ByteBuffer(string: "{\"ok\":true}")) }

    private static func moveHead(_ request: SimRequest, owner: String, name: String, core: SimulatorCore) -> SimResponse {
        let steps: Int
        if let back = request.queryValue("back").flatMap(Int.init), back >= 0 {
            steps = back
        } else if let forward = request.queryValue("forward").flatMap(Int.init), forward >= 0 {
            steps = -forward
        } else {
            return .error(.badRequest, "expected ?back=N or ?forward=N with N >= 0")
        }
        do {
            let sha = try core.moveHead(owner: owner, name: name, by: steps)
            return .json(.ok, ByteBuffer(string: "{\"head\":\"\(sha)\"}"))
        } catch {
            return .error(.notFound, "\(error)")
        }
    }

    private static func branch(
        _ request: SimRequest, method: HTTPMethod, owner: String, name: String, core: SimulatorCore
    ) -> SimResponse {
        guard let branch = request.queryValue("name"), !branch.isEmpty else { return .error(.badRequest, "expected ?name=BRANCH") }
        do {
            switch method {
            case .DELETE:
                try core.deleteBranch(owner: owner, name: name, branch: branch)
                return ok()
            case .POST:
                let sha: String
                if let at = request.queryValue("at") {
                    sha = try core.setBranch(owner: owner, name: name, branch: branch, to: at)
                } else if let back = request.queryValue("back").flatMap(Int.init), back >= 0 {
                    sha = try core.moveBranch(owner: owner, name: name, branch: branch, by: back)
                } else if let forward = request.queryValue("forward").flatMap(Int.init), forward >= 0 {
                    sha = try core.moveBranch(owner: owner, name: name, branch: branch, by: -forward)
                } else {
                    return .error(.badRequest, "expected &at=SHA, &back=N or &forward=N with N >= 0")
                }
                return .json(.ok, ByteBuffer(string: "{\"head\":\"\(sha)\"}"))
            default:
                return .notFound()
            }
        } catch {
            return .error(.unprocessableEntity, "\(error)")
        }
    }

    private static func tag(_ request: SimRequest, method: HTTPMethod, owner: String, name: String, core: SimulatorCore)
        -> SimResponse
    {
        guard let tag = request.queryValue("name"), !tag.isEmpty else { return .error(.badRequest, "expected ?name=TAG") }
        do {
            let repository = try core.repository(owner: owner, name: name)
            switch method {
            case .DELETE:
                _ = try repository.deleteTag(tag)
                return ok()
            case .POST:
                guard let at = request.queryValue("at") else { return .error(.badRequest, "expected &at=SHA") }
                let move = try repository.setTag(tag, to: at, message: request.queryValue("message"))
                return .json(.ok, ByteBuffer(string: "{\"ref\":\"\(move.after)\"}"))
            default:
                return .notFound()
            }
        } catch {
            return .error(.unprocessableEntity, "\(error)")
        }
    }

    private static func addRepository(_ request: SimRequest, owner: String, name: String, core: SimulatorCore) -> SimResponse {
        guard let commits = request.queryValue("commits").flatMap(Int.init), commits >= 0, commits <= 1_000_000 else {
            return .error(.badRequest, "expected ?commits=N with 0 <= N <= 1000000")
        }
        let seed = request.queryValue("seed").flatMap(UInt64.init) ?? 1
        let tagEvery = max(0, request.queryValue("tagEvery").flatMap(Int.init) ?? 0)
        let id = core.unusedID()
        let repository = SimRepository(
            owner: owner, name: name, id: id,
            source: commits == 0 ? .empty : .synthetic(SyntheticSpec(commits: commits, seed: seed, tagEvery: tagEvery)),
            fork: request.queryValue("fork") == "true", archived: request.queryValue("archived") == "true",
            isPrivate: request.queryValue("private") == "true")
        do {
            try core.add(repository)
            return .json(.ok, ByteBuffer(string: "{\"id\":\(id)}"))
        } catch {
            return .error(.unprocessableEntity, "\(error)")
        }
    }

    struct BadFaultPlan: Error, CustomStringConvertible {
        var description: String
    }

    /// An empty body turns every fault off.
    static func faultPlan(from body: ByteBuffer?) throws -> FaultPlan {
        var plan = FaultPlan()
        guard let body, body.readableBytes > 0 else { return plan }
        guard let object = try? JSONSerialization.jsonObject(with: Data(body.readableBytesView)) as? [String: Any] else {
            throw BadFaultPlan(description: "the body must be a JSON object")
        }
        for (key, value) in object {
            if key == "git" {
                plan.git = try gitFault(value)
                continue
            }
            if key == "holdAccessTokens" {
                guard let hold = value as? Bool else { throw BadFaultPlan(description: "\(key) must be true or false") }
                plan.holdAccessTokens = hold
                continue
            }
            if key == "hostileTags" || key == "hostilePulls" {
                guard let names = value as? [String] else { throw BadFaultPlan(description: "\(key) must be an array of names") }
                try hostile(names, key: key, into: &plan)
                continue
            }
            if key == "branchListingOmits" {
                guard let names = value as? [String] else { throw BadFaultPlan(description: "\(key) must be an array of branch names") }
                plan.branchListingOmits = Set(names)
                continue
            }
            let number: Int?
            if value is NSNull {
                number = nil
            } else if let n = value as? Int, n >= 0 {
                number = n == 0 ? nil : n
            } else {
                throw BadFaultPlan(description: "\(key) must be a non-negative integer or null")
            }
            switch key {
            case "serverErrorEvery": plan.serverErrorEvery = number
            case "truncateEvery": plan.truncateEvery = number
            case "resetEvery": plan.resetEvery = number
            case "secondaryLimitEvery": plan.secondaryLimitEvery = number
            case "delayMilliseconds": plan.delay = .milliseconds(number ?? 0)
            default: throw BadFaultPlan(description: "unknown fault field \(key)")
            }
        }
        return plan
    }

    private static func hostile(_ names: [String], key: String, into plan: inout FaultPlan) throws {
        for name in names {
            if key == "hostileTags", let tag = HostileTag(rawValue: name) {
                plan.hostileTags.insert(tag)
            } else if key == "hostilePulls", let pull = HostilePull(rawValue: name) {
                plan.hostilePulls.insert(pull)
            } else {
                let known = key == "hostileTags" ? HostileTag.allCases.map(\.rawValue) : HostilePull.allCases.map(\.rawValue)
                throw BadFaultPlan(description: "\(key): unknown \(name); use \(known.joined(separator: ", "))")
            }
        }
    }

    private static func gitFault(_ value: Any) throws -> GitFault? {
        if value is NSNull { return nil }
        guard let name = value as? String, let fault = GitFault(rawValue: name) else {
            let names = GitFault.allCases.map(\.rawValue).joined(separator: ", ")
            throw BadFaultPlan(description: "git must be null or one of \(names)")
        }
        return fault
    }
}
