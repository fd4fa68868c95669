// The request pipeline every API request goes through, in GitHub's order: User-Agent, API
// version, credentials, injected faults, rate limit, then the endpoint. Transport-free, so the
// NIO handler and the tests drive the same code.

import Foundation
import NIOCore
import NIOHTTP1
import Synchronization

final class SimulatorCore: Sendable {
    static let apiVersions: Set<String> = ["2022-11-28", "2026-03-10"]
    static let defaultAPIVersion = "2022-11-28"

    let configuration: SimConfiguration
    /// App mode: the App's JWTs and the installation tokens issued (nil without `configuration.app`).
    let appAuthority: AppAuthority?
    /// Where head moves are delivered as signed `push` webhooks (none configured: nothing sent).
    let webhooks: WebhookDispatcher
    /// What is served now: tests add and delete repositories at run time.
    private let hosted: Mutex<[HostedRepository]>
    private let state: Mutex<State>
    /// Responses `FaultPlan.holdFrom` (or `holdAccessTokens`) keeps back; a new plan releases them.
    let held = HeldResponses()

    var repositories: [HostedRepository] { hosted.withLock { $0 } }

    private struct State {
        var baseURL = ""
        var stats = SimStats()
        var rate: RateLimiter
        var faults: FaultPlan
        /// List requests since the fault plan was set.
        var faultCounters = FaultPlan.Counters()
        var requestCounter = 0
    }

    init(configuration: SimConfiguration, repositories: [SimRepository]) throws {
        var ids = Set<Int>()
        var names = Set<String>()
        for repository in repositories {
            guard ids.insert(repository.id).inserted else {
                throw SimulatorError(description: "two repositories have id \(repository.id)")
            }
            guard names.insert(repository.fullName.lowercased()).inserted else {
                throw SimulatorError(description: "repository \(repository.fullName) is listed twice")
            }
        }
        self.configuration = configuration
        appAuthority = configuration.app.map(AppAuthority.init(app:))
        webhooks = WebhookDispatcher(configuration.webhook)
        hosted = Mutex(try repositories.map(HostedRepository.init))
        state = Mutex(State(rate: RateLimiter(window: configuration.rateLimitWindow), faults: configuration.faults))
    }

    var baseURL: String {
        get { state.withLock { $0.baseURL } }
        set { state.withLock { $0.baseURL = newValue } }
    }

    // MARK: - Control

    func stats() -> SimStats {
        state.withLock { state in
            var stats = state.stats
            stats.rateLimitUsed = state.rate.usedByLabel()
            if let counters = appAuthority?.counters {
                stats.appTokensIssued = counters.tokensIssued
                stats.expiredTokenRefusals = counters.expiredTokenRefusals
                stats.jwtRefusals = counters.jwtRefusals
            }
            return stats
        }
    }

    /// Zeroes the counters and the rate-limit buckets, so a benchmark run starts from a clean slate.
    func resetStats() {
        state.withLock { state in
            state.stats = SimStats()
            state.rate.removeAll()
        }
        appAuthority?.resetCounters()
    }

    func setFaults(_ plan: FaultPlan) {
        state.withLock { state in
            state.faults = plan
            state.faultCounters = FaultPlan.Counters()
            // Under the same lock as the plan, so no response is held under the new one by mistake.
            held.releaseAll()
        }
    }

    func currentFaults() -> FaultPlan { state.withLock { $0.faults } }

    /// Counts pack data a fetch response sent.
    func recordPackBytes(_ count: Int) {
        state.withLock { $0.stats.gitPackBytes += count }
    }

    /// The repository currently named `owner/name` (case-insensitive).
    func repository(owner: String, name: String) throws -> HostedRepository {
        let key = "\(owner)/\(name)".lowercased()
        guard let repository = repositories.first(where: { $0.snapshot.fullName.lowercased() == key }) else {
            throw SimulatorError.unknownRepository(owner, name)
        }
        return repository
    }

    /// The GitHub id of the repository a list request names, by name or by id.
    private func listedRepositoryID(_ route: Route) -> Int? {
        switch route {
        case .repository(.id(let id), _): return id
        case .repository(.name(let owner, let name), _): return try? repository(owner: String(owner), name: String(name)).id
        default: return nil
        }
    }

    /// Starts serving `repository` (its name and id must be free).
    func add(_ repository: SimRepository) throws {
        let added = try HostedRepository(repository)
        try hosted.withLock { list in
            let key = repository.fullName.lowercased()
            if list.contains(where: { $0.snapshot.fullName.lowercased() == key }) {
                throw SimulatorError(description: "repository \(repository.fullName) already exists")
            }
            if list.contains(where: { $0.id == repository.id }) {
                throw SimulatorError(description: "repository id \(repository.id) is taken")
            }
            list.append(added)
        }
    }

    /// Stops serving the repository: every request for it answers 404 from now on.
    func delete(owner: String, name: String) throws {
        let key = "\(owner)/\(name)".lowercased()
        try hosted.withLock { list in
            guard let index = list.firstIndex(where: { $0.snapshot.fullName.lowercased() == key }) else {
                throw SimulatorError.unknownRepository(owner, name)
            }
            list.remove(at: index)
        }
    }

    /// An id no repository served now has.
    func unusedID() -> Int { hosted.withLock { list in (list.map(\.id).max() ?? 1000) + 1 } }

    // MARK: - Requests

    func handle(_ request: SimRequest) -> SimResponse {
        if request.path == "/_sim" || request.path.hasPrefix("/_sim/") {
            return ControlEndpoint.respond(request, core: self)
        }
        if let gitRoute = GitRoute(path: request.path) {
            state.withLock { $0.stats.gitRequests += 1 }
            var response = GitEndpoint.respond(request, route: gitRoute, core: self)
            response.headers.add(name: "Date", value: Timestamp.httpDate(Int64(Date().timeIntervalSince1970)))
            response.headers.add(name: "Server", value: "github-sim")
            response.delay += configuration.latency
            return response
        }
        let route = Route(path: request.path)
        let (requestNumber, baseURL) = state.withLock { state in
            state.stats.requests += 1
            if request.headers.contains(name: "Authorization") { state.stats.authorizationHeadersSeen += 1 }
            if route.isListCommits { state.stats.listRequests += 1 }
            if route.isOwnerListing { state.stats.ownerListings += 1 }
            if route.isAccessTokens { state.stats.accessTokenRequests += 1 }
            if let key = route.repositoryStatsKey { state.stats.requestsByRepository[key, default: 0] += 1 }
            state.requestCounter += 1
            return (state.requestCounter, state.baseURL)
        }
        var response = serveAPI(request, route: route, baseURL: baseURL, requestID: Self.requestID(requestNumber))
        response.delay += configuration.latency
        addCommonHeaders(&response, request: request, requestNumber: requestNumber)
        compressIfAccepted(&response, request: request)
        state.withLock { state in
            state.stats.record(status: Int(response.status.code), failedByFault: response.disposition != .complete)
        }
        return response
    }

    private func serveAPI(_ request: SimRequest, route: Route, baseURL: String, requestID: String) -> SimResponse {
        guard let agent = request.header("User-Agent"), !agent.trimmingASCIISpaces.isEmpty else {
            return .error(
                .forbidden,
                "Request forbidden by administrative rules. Please make sure your request has a User-Agent header",
                documentationURL: "https://docs.github.com/rest/overview/resources-in-the-rest-api#user-agent-required")
        }
        if let version = request.header("X-GitHub-Api-Version"), !Self.apiVersions.contains(version) {
            return .error(.badRequest, "API version '\(version)' is not supported.")
        }

        let caller: Caller
        let bucket: Bucket
        switch authenticate(request) {
        case .accepted(let who, let spending):
            (caller, bucket) = (who, spending)
        case .refused(let response):
            return response
        }

        var fault: InjectedFault?
        var delay = Duration.zero
        var heldUntilPlanOf: Int?
        if route.isListCommits {
            let repositoryID = listedRepositoryID(route)
            (fault, delay, heldUntilPlanOf) = state.withLock { state in
                let next = state.faultCounters.next(repositoryID: repositoryID, under: state.faults)
                return (next.fault, next.delay, next.holds ? held.generation : nil)
            }
        } else if route.isAccessTokens {
            heldUntilPlanOf = state.withLock { $0.faults.holdAccessTokens ? held.generation : nil }
        }
        var response: SimResponse
        switch fault {
        case .reset:
            response = SimResponse(status: .ok)
            response.disposition = .reset
        case .serverError:
            response = .badGateway()
        case .secondaryLimit:
            response = .error(
                .forbidden,
                "You have exceeded a secondary rate limit. Please wait a few minutes before you try again. If you reach out to GitHub Support for help, please include the request ID \(requestID).",
                documentationURL: "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits")
            response.headers.add(name: "retry-after", value: "1")
            addRateHeaders(&response, peek(bucket))
        case .truncate, nil:
            response = chargedResponse(request, route: route, baseURL: baseURL, bucket: bucket, caller: caller)
            if fault == .truncate { response.disposition = .truncate }
        }
        response.delay = delay
        response.heldUntilPlanOf = heldUntilPlanOf
        return response
    }

    func charge(_ bucket: Bucket) -> RateStatus? {
        state.withLock { $0.rate.charge(key: bucket.key, label: bucket.label, limit: bucket.limit) }
    }

    func peek(_ bucket: Bucket) -> RateStatus {
        state.withLock { $0.rate.status(key: bucket.key, label: bucket.label, limit: bucket.limit) }
    }

    /// Spends a point, answers, and gives the point back for an authorized 304 (GitHub's rule).
    private func chargedResponse(
        _ request: SimRequest, route: Route, baseURL: String, bucket: Bucket, caller: Caller
    ) -> SimResponse {
        let authenticated = caller.isAuthenticated
        if route == .rateLimit {
            let rate = peek(bucket)
            var response = Self.rateLimitBody(rate)
            addRateHeaders(&response, rate)
            return response
        }
        guard var rate = charge(bucket) else {
            let message =
                authenticated
                ? "API rate limit exceeded for user ID 1."
                : "API rate limit exceeded for \(request.remoteIP). (But here's the good news: Authenticated requests get a higher rate limit. Check out the documentation for more details.)"
            var response = SimResponse.error(
                .forbidden, message,
                documentationURL: "https://docs.github.com/rest/overview/resources-in-the-rest-api#rate-limiting")
            addRateHeaders(&response, peek(bucket))
            return response
        }
        var response = dispatch(request, route: route, baseURL: baseURL, caller: caller)
        if response.status == .notModified && authenticated {
            rate = state.withLock { $0.rate.refund(key: bucket.key) } ?? rate
        }
        addRateHeaders(&response, rate)
        return response
    }

    /// `SimConfiguration.cloneServer`, or `baseURL` with its host replaced by `cloneHost`, when set.
    private func cloneBaseURL(for baseURL: String) -> String {
        if let server = configuration.cloneServer { return server }
        guard let host = configuration.cloneHost, var components = URLComponents(string: baseURL) else { return baseURL }
        components.host = host
        return components.string ?? baseURL
    }

    private func dispatch(_ request: SimRequest, route: Route, baseURL: String, caller: Caller) -> SimResponse {
        let authenticated = caller.isAuthenticated
        let repositories = self.repositories
        if case .app(let appRoute) = route {
            guard let appAuthority else { return .notFound() }
            return AppEndpoints.respond(
                request, route: appRoute, caller: caller, authority: appAuthority, repositories: repositories,
                baseURL: baseURL, cloneBaseURL: cloneBaseURL(for: baseURL))
        }
        guard request.method == .GET else { return .notFound() }
        // The App itself reaches only the App endpoints: repositories take an installation token.
        if caller == .app { return .error(.forbidden, "Resource not accessible by integration") }
        if case .ownerRepositories(let owner) = route {
            return OwnerRepositoriesEndpoint.respond(
                request, owner: owner, repositories: repositories, userAccounts: configuration.userAccounts,
                baseURL: baseURL, cloneBaseURL: cloneBaseURL(for: baseURL), authenticated: authenticated)
        }
        guard case .repository(let reference, let tail) = route else { return .notFound() }
        let repository: HostedRepository
        switch reference {
        case .id(let id):
            guard let found = repositories.first(where: { $0.id == id }) else { return .notFound() }
            repository = found
        case .name(let owner, let name):
            let key = "\(owner)/\(name)".lowercased()
            if let found = repositories.first(where: { $0.snapshot.fullName.lowercased() == key }) {
                repository = found
            } else if let renamed = repositories.first(where: { $0.snapshot.formerNames.contains(key) }) {
                let rest = tail.isEmpty ? "" : "/" + tail.joined(separator: "/")
                return .movedPermanently(to: "\(baseURL)/repositories/\(renamed.id)\(rest)\(request.querySuffix)")
            } else {
                return .notFound()
            }
        }
        // GitHub hides a private repository from those who may not see it.
        let state = repository.snapshot
        if repository.isPrivate && !caller.seesPrivate(owner: state.owner) { return .notFound() }
        if let target = state.redirectBaseURL {
            return .movedPermanently(to: target + request.path + request.querySuffix)
        }
        let context = EndpointContext(
            request: request, repository: repository, state: state, baseURL: baseURL,
            cloneBaseURL: cloneBaseURL(for: baseURL), authenticated: authenticated)
        return RepositoryRoutes.respond(context, tail: tail, faults: self.currentFaults())
    }

    // MARK: - Headers

    private static func rateLimitBody(_ rate: RateStatus) -> SimResponse {
        let core =
            "{\"limit\":\(rate.limit),\"used\":\(rate.used),\"remaining\":\(rate.remaining),\"reset\":\(rate.reset),\"resource\":\"core\"}"
        return .json(.ok, ByteBuffer(string: "{\"resources\":{\"core\":\(core)},\"rate\":\(core)}"))
    }

    func addRateHeaders(_ response: inout SimResponse, _ rate: RateStatus) {
        response.headers.add(name: "X-RateLimit-Limit", value: String(rate.limit))
        response.headers.add(name: "X-RateLimit-Remaining", value: String(rate.remaining))
        response.headers.add(name: "X-RateLimit-Reset", value: String(rate.reset))
        response.headers.add(name: "X-RateLimit-Used", value: String(rate.used))
        response.headers.add(name: "X-RateLimit-Resource", value: "core")
    }

    private func addCommonHeaders(_ response: inout SimResponse, request: SimRequest, requestNumber: Int) {
        var headers = response.headers
        headers.add(name: "Date", value: Timestamp.httpDate(Int64(Date().timeIntervalSince1970)))
        headers.add(name: "Server", value: "github-sim")
        if headers.first(name: "Content-Type")?.hasPrefix("application/json") == true || response.status == .notModified {
            headers.add(name: "X-GitHub-Media-Type", value: "github.v3; format=json")
        }
        let version = request.header("X-GitHub-Api-Version") ?? Self.defaultAPIVersion
        headers.add(name: "x-github-api-version-selected", value: Self.apiVersions.contains(version) ? version : Self.defaultAPIVersion)
        headers.add(name: "Access-Control-Allow-Origin", value: "*")
        headers.add(name: "X-GitHub-Request-Id", value: Self.requestID(requestNumber))
        response.headers = headers
    }

    private static func requestID(_ number: Int) -> String { "5130:\(Hex.string(UInt64(number), width: 8))" }

    /// Gzips the body when the client accepts it, as api.github.com does.
    private func compressIfAccepted(_ response: inout SimResponse, request: SimRequest) {
        guard configuration.compressResponses, let body = response.body, body.readableBytes >= 256,
            Self.acceptsGzip(request.header("Accept-Encoding"))
        else { return }
        response.body = Gzip.compress(body)
        response.headers.add(name: "Content-Encoding", value: "gzip")
    }

    static func acceptsGzip(_ acceptEncoding: String?) -> Bool {
        guard let acceptEncoding else { return false }
        for item in acceptEncoding.split(separator: ",") {
            let fields = item.split(separator: ";").map { $0.trimmingASCIISpaces.lowercased() }
            guard let coding = fields.first, coding == "gzip" || coding == "x-gzip" || coding == "*" else { continue }
            let refused = fields.dropFirst().contains { $0.hasPrefix("q=") && Double($0.dropFirst(2)) == 0 }
            if !refused { return true }
        }
        return false
    }
}
