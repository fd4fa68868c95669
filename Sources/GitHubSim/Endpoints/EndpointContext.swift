// What every repository endpoint needs to answer one request.

import NIOHTTP1

struct EndpointContext {
    let request: SimRequest
    let repository: HostedRepository
    /// The repository's state when the request arrived.
    let state: HostedRepository.State
    let baseURL: String
    /// Where `clone_url` points: `baseURL`, or the same server under `SimConfiguration.cloneHost`.
    let cloneBaseURL: String
    let authenticated: Bool
    let renderer: ElementRenderer

    init(
        request: SimRequest, repository: HostedRepository, state: HostedRepository.State, baseURL: String,
        cloneBaseURL: String? = nil, authenticated: Bool
    ) {
        self.request = request
        self.repository = repository
        self.state = state
        self.baseURL = baseURL
        self.cloneBaseURL = cloneBaseURL ?? baseURL
        self.authenticated = authenticated
        renderer = ElementRenderer(baseURL: baseURL, owner: state.owner, name: state.name, repoID: repository.id)
    }

    /// Headers GitHub puts on every cacheable repository response.
    func cacheHeaders(etag: String, lastModified: Int64?) -> HTTPHeaders {
        Self.cacheHeaders(etag: etag, lastModified: lastModified, authenticated: authenticated)
    }

    /// The same for responses about no single repository (owner listings).
    static func cacheHeaders(etag: String, lastModified: Int64?, authenticated: Bool) -> HTTPHeaders {
        var headers = HTTPHeaders()
        headers.add(name: "Cache-Control", value: authenticated ? "private, max-age=60, s-maxage=60" : "public, max-age=60, s-maxage=60")
        headers.add(name: "Vary", value: "Accept, Authorization, Cookie, X-GitHub-OTP, Accept-Encoding, Accept, X-Requested-With")
        headers.add(name: "ETag", value: etag)
        if let lastModified { headers.add(name: "Last-Modified", value: Timestamp.httpDate(lastModified)) }
        return headers
    }

    /// 304 when If-None-Match names `etag`, otherwise nil.
    func notModified(etag: String, headers: HTTPHeaders) -> SimResponse? {
        guard ConditionalRequest.matches(ifNoneMatch: request.header("If-None-Match"), etag: etag) else { return nil }
        return SimResponse(status: .notModified, headers: headers)
    }
}
