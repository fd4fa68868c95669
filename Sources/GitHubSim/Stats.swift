// Counters a test or benchmark reads to check how a client behaved.

/// What the simulator has served since start (or the last `resetStats`).
public struct SimStats: Sendable, Codable, Equatable {
    /// API requests (control endpoints under `/_sim/` and git requests are not counted).
    public var requests: Int
    /// 200 responses.
    public var ok: Int
    /// 304 responses.
    public var notModified: Int
    /// Responses with status >= 400, plus injected resets and truncations.
    public var errors: Int
    /// Requests to the list-commits endpoint, by either path form.
    public var listRequests: Int
    /// Requests listing an account's repositories (`Route.isOwnerListing`).
    public var ownerListings = 0
    /// Points used in the current window per bucket: `"token:abcd…"` or `"ip:127.0.0.1"`.
    public var rateLimitUsed: [String: Int]
    /// Requests that carried an Authorization header (API requests only).
    public var authorizationHeadersSeen: Int
    /// Smart HTTP requests (`info/refs`, `git-upload-pack`); they spend no rate limit.
    public var gitRequests: Int
    /// Pack bytes sent in fetch responses.
    public var gitPackBytes: Int
    /// API requests per repository, by the lowercased `owner/name` they name, or
    /// `#id` for the `/repositories/{id}/…` form that `Link` URLs use.
    public var requestsByRepository: [String: Int] = [:]
    /// App mode: installation tokens issued (`POST /app/installations/{id}/access_tokens`).
    public var appTokensIssued = 0
    /// App mode: requests to mint one, answered or not (`FaultPlan.holdAccessTokens`).
    public var accessTokenRequests = 0
    /// App mode: requests (API and git) refused because their installation token had expired.
    public var expiredTokenRefusals = 0
    /// App mode: JWTs refused (bad signature, `iat`/`exp`, `iss`).
    public var jwtRefusals = 0

    public init(
        requests: Int = 0, ok: Int = 0, notModified: Int = 0, errors: Int = 0, listRequests: Int = 0,
        rateLimitUsed: [String: Int] = [:], authorizationHeadersSeen: Int = 0, gitRequests: Int = 0, gitPackBytes: Int = 0
    ) {
        self.requests = requests
        self.ok = ok
        self.notModified = notModified
        self.errors = errors
        self.listRequests = listRequests
        self.rateLimitUsed = rateLimitUsed
        self.authorizationHeadersSeen = authorizationHeadersSeen
        self.gitRequests = gitRequests
        self.gitPackBytes = gitPackBytes
    }

    /// Counts one finished API response.
    mutating func record(status: Int, failedByFault: Bool) {
        if failedByFault || status >= 400 {
            errors += 1
        } else if status == 200 {
            ok += 1
        } else if status == 304 {
            notModified += 1
        }
    }
}
