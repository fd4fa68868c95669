// The public face of the simulator: configure repositories, start an HTTP server, and steer the
// served state (head moves, renames, redirects, faults) from tests and benchmarks.

import Synchronization

/// A loopback imitation of api.github.com's commit endpoints.
public final class GitHubSimulator: Sendable {
    let core: SimulatorCore
    private let server = Mutex<ServerState>(.idle)

    private enum ServerState {
        case idle, starting, running(HTTPServer), stopped
    }

    /// Loads every repository (datasets and git repositories are read here; a bad file throws a
    /// `DatasetError` naming it, a bad git repository a `GitRepositoryError`).
    public init(configuration: SimConfiguration = .init(), repositories: [SimRepository]) throws {
        core = try SimulatorCore(configuration: configuration, repositories: repositories)
    }

    /// Binds `host:port`; afterwards `baseURL` is valid.
    public func start() async throws {
        try server.withLock { state in
            guard case .idle = state else { throw SimulatorError(description: "the simulator was already started") }
            state = .starting
        }
        let configuration = core.configuration
        do {
            let http = try await HTTPServer.start(host: configuration.host, port: configuration.port, core: core)
            var host = configuration.host
            if host == "0.0.0.0" || host == "::" { host = "127.0.0.1" }
            if host.contains(":") { host = "[\(host)]" }
            core.baseURL = "http://\(host):\(http.port)"
            server.withLock { $0 = .running(http) }
            core.webhooks.ping()
        } catch {
            server.withLock { $0 = .idle }
            throw error
        }
    }

    /// `http://host:port`, without a trailing slash; empty before `start()`.
    public var baseURL: String { core.baseURL }

    /// Closes the listener and every connection.
    public func shutdown() async throws {
        let running: HTTPServer? = server.withLock { state in
            defer { state = .stopped }
            if case .running(let http) = state { return http }
            return nil
        }
        // A response still held would otherwise keep its promise, and its connection, forever.
        core.held.releaseAll()
        try await running?.shutdown()
    }

    public func stats() -> SimStats { core.stats() }

    /// Zeroes the counters and the rate-limit budgets.
    public func resetStats() { core.resetStats() }

    /// Replaces the fault plan and restarts its request counter.
    public func setFaults(_ plan: FaultPlan) { core.setFaults(plan) }

    /// Moves the default branch head `steps` first-parent steps back in time (a force-push);
    /// clamps at the root.
    public func moveHead(owner: String, name: String, back steps: Int) throws {
        _ = try core.moveHead(owner: owner, name: name, by: max(0, steps))
    }

    /// Moves the head `steps` first-parent steps toward the original head (new pushes arriving);
    /// clamps there.
    public func moveHead(owner: String, name: String, forward steps: Int) throws {
        _ = try core.moveHead(owner: owner, name: name, by: -max(0, steps))
    }

    /// Where head moves are delivered as signed `push` webhooks from now on (`nil`: nowhere).
    public func setWebhook(_ webhook: SimWebhook?) { core.webhooks.target = webhook }

    /// Every webhook delivery so far, oldest first, with the receiver's answer.
    public func webhookDeliveries() -> [SimWebhookDelivery] { core.webhooks.delivered }

    public func headSHA(owner: String, name: String) throws -> String {
        let repository = try core.repository(owner: owner, name: name)
        guard let graph = repository.graph, let head = repository.snapshot.head else {
            throw SimulatorError.emptyRepository(owner, name)
        }
        return graph.sha(of: head)
    }

    /// Every commit reachable from the current head: what a correct mirror must hold.
    /// Empty for an empty repository.
    public func reachableSHAs(owner: String, name: String) throws -> Set<String> {
        let repository = try core.repository(owner: owner, name: name)
        guard let graph = repository.graph, let head = repository.snapshot.head else { return [] }
        let listing = graph.listing(from: head, since: nil, until: nil)
        var shas = Set<String>(minimumCapacity: listing.count)
        for position in 0..<listing.count { shas.insert(graph.sha(of: listing[position])) }
        return shas
    }

    /// Points `branch` (not the default branch) at commit `sha` of the history: creates it, moves
    /// it, or force-pushes it back. Returns the sha.
    @discardableResult
    public func setBranch(owner: String, name: String, branch: String, to sha: String) throws -> String {
        try core.setBranch(owner: owner, name: name, branch: branch, to: sha)
    }

    /// Moves `branch` `steps` first-parent steps back (a force-push); a new branch starts at the
    /// default head. Returns its new head.
    @discardableResult
    public func moveBranch(owner: String, name: String, branch: String, back steps: Int) throws -> String {
        try core.moveBranch(owner: owner, name: name, branch: branch, by: max(0, steps))
    }

    /// Moves `branch` `steps` first-parent steps toward the default branch's original head.
    @discardableResult
    public func moveBranch(owner: String, name: String, branch: String, forward steps: Int) throws -> String {
        try core.moveBranch(owner: owner, name: name, branch: branch, by: -max(0, steps))
    }

    public func deleteBranch(owner: String, name: String, branch: String) throws {
        try core.deleteBranch(owner: owner, name: name, branch: branch)
    }

    /// Renames the default branch (GitHub's branch rename): its head stays, the old name is gone.
    public func renameDefaultBranch(owner: String, name: String, to branch: String) throws {
        try core.renameDefaultBranch(owner: owner, name: name, to: branch)
    }

    /// Every branch (the default one included) and its head sha, by name.
    public func branchHeads(owner: String, name: String) throws -> [String: String] {
        let repository = try core.repository(owner: owner, name: name)
        guard let graph = repository.graph else { return [:] }
        return Dictionary(uniqueKeysWithValues: repository.snapshot.branchHeads.map { ($0.name, graph.sha(of: $0.node)) })
    }

    /// Every commit `branch` reaches (`git rev-list BRANCH`); empty for an unknown branch.
    public func reachableSHAs(owner: String, name: String, branch: String) throws -> Set<String> {
        let repository = try core.repository(owner: owner, name: name)
        let state = repository.snapshot
        guard let graph = repository.graph, let node = state.branchHeads.first(where: { $0.name == branch })?.node else { return [] }
        let listing = graph.listing(from: node, since: nil, until: nil)
        return Set((0..<listing.count).map { graph.sha(of: listing[$0]) })
    }

    /// Starts serving another repository (its name and id must be free): it shows up in its
    /// owner's listing from the next request on.
    public func addRepository(_ repository: SimRepository) throws {
        try core.add(repository)
    }

    /// An id no repository served now has, for `addRepository`.
    public func unusedRepositoryID() -> Int { core.unusedID() }

    /// Stops serving the repository: its endpoints answer 404 and listings leave it out.
    public func deleteRepository(owner: String, name: String) throws {
        try core.delete(owner: owner, name: name)
    }

    /// Renames the repository; requests under the old `/repos/{o}/{r}` path then answer 301 to
    /// `/repositories/{id}/…`.
    public func rename(owner: String, name: String, to newOwner: String, newName: String) throws {
        let repository = try core.repository(owner: owner, name: name)
        if (try? core.repository(owner: newOwner, name: newName)) != nil,
            "\(owner)/\(name)".lowercased() != "\(newOwner)/\(newName)".lowercased()
        {
            throw SimulatorError(description: "repository \(newOwner)/\(newName) already exists")
        }
        repository.rename(toOwner: newOwner, name: newName)
    }

    /// Makes every request for this repository answer 301 with the same path and query on
    /// `toBaseURL` (e.g. another simulator).
    public func redirect(owner: String, name: String, toBaseURL: String) throws {
        var base = Substring(toBaseURL)
        while base.hasSuffix("/") { base.removeLast() }
        try core.repository(owner: owner, name: name).redirect(toBaseURL: String(base))
    }
}
