// /_sim/repos/{o}/{r}/pulls…: opening and changing pull requests at run time, each delivered as the
// signed `pull_request` webhook GitHub sends (where a webhook is configured), and each bumping the
// pull request's `updated_at`.
//   POST /_sim/repos/{o}/{r}/pulls?title=T&head=SHA[&base=B]   opens one → {"number":N}
//   POST /_sim/repos/{o}/{r}/pulls/{n}?title=T[&base=B]        edits its title or base (either)
//   POST /_sim/repos/{o}/{r}/pulls/{n}/close                   closes an open one
//   POST /_sim/repos/{o}/{r}/pulls/{n}/reopen                  reopens a closed one not merged

import Foundation
import NIOCore
import NIOHTTP1

extension ControlEndpoint {
    static func pulls(_ request: SimRequest, path: [Substring], core: SimulatorCore) -> SimResponse {
        guard request.method == .POST else { return .notFound() }
        let number = path.count >= 5 ? Int(path[4]) : nil
        let action = path.count == 6 ? String(path[5]) : nil
        guard path.count == 4 || (number != nil && (path.count == 5 || ["close", "reopen"].contains(action))) else {
            return .notFound()
        }
        do {
            let repository = try core.repository(owner: String(path[1]), name: String(path[2]))
            let base = try request.queryValue("base").map { try branchHead($0, in: repository) }
            let title = request.queryValue("title")
            let event = ["close": "closed", "reopen": "reopened"][action ?? ""] ?? (number == nil ? "opened" : "edited")
            let pull = try repository.pulls.change(number, in: repository) { pull, now in
                switch event {
                case "opened":
                    guard let head = request.queryValue("head"), let node = repository.graph?.node(forSHA: head) else {
                        throw SimulatorError(description: "expected &head=SHA, a commit of \(repository.snapshot.fullName)")
                    }
                    pull.headSHA = repository.graph?.sha(of: node) ?? head
                    (pull.baseRef, pull.baseSHA) = try base ?? branchHead(repository.defaultBranch, in: repository)
                case "closed":
                    guard pull.isOpen else { throw SimulatorError(description: "pull request #\(pull.number) is closed already") }
                    (pull.isOpen, pull.closedAt) = (false, now)
                case "reopened":
                    guard !pull.isOpen, pull.mergedAt == nil else {
                        throw SimulatorError(description: "pull request #\(pull.number) is open or merged: it cannot be reopened")
                    }
                    (pull.isOpen, pull.closedAt) = (true, nil)
                default:
                    if let base { (pull.baseRef, pull.baseSHA) = base }
                }
                if let title { pull.title = title }
            }
            deliver(event, pull, repository: repository, core: core)
            return .json(.ok, ByteBuffer(string: "{\"number\":\(pull.number)}"))
        } catch {
            return .error(.unprocessableEntity, "\(error)")
        }
    }

    /// A branch's name and head, for a pull request's base.
    private static func branchHead(_ name: String, in repository: HostedRepository) throws -> (String, String) {
        guard let graph = repository.graph, let branch = repository.snapshot.branchHeads.first(where: { $0.name == name }) else {
            throw SimulatorError(description: "no branch \(name) in \(repository.snapshot.fullName)")
        }
        return (name, graph.sha(of: branch.node))
    }

    /// The `pull_request` event, its pull request rendered as the API renders it.
    private static func deliver(_ action: String, _ pull: PullRequest, repository: HostedRepository, core: SimulatorCore) {
        let snapshot = repository.snapshot
        var body = ByteBuffer()
        let renderer = ElementRenderer(baseURL: core.baseURL, owner: snapshot.owner, name: snapshot.name, repoID: repository.id)
        PullsEndpoint.write(pull, renderer: renderer, owner: snapshot.owner, into: &body)
        guard let object = try? JSONSerialization.jsonObject(with: Data(body.readableBytesView)) else { return }
        core.webhooks.pullRequestEvent(action, repository, number: pull.number, pullRequest: object)
    }
}
