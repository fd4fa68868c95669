import Curl
import Foundation
import Logging
import Synchronization

/// The GitHub REST calls a mirror needs, over our libcurl client.
///
/// Sends GitHub's recommended headers, adds `Authorization` only for the
/// configured API origin (scheme, host and port: `APIOrigin`), follows
/// 301/302/307/308 itself but only within that origin, retries transient
/// failures with capped backoff and jitter, and handles rate limits as
/// LIST-COMMITS.md §5 describes, never waiting longer than `RetryPolicy` allows.
/// Every error it throws carries server text only after `redact(_:)`. One
/// request at a time: the underlying `HTTPClient` serialises transfers.
public final class GitHubClient: Sendable {
    public struct Configuration: Sendable {
        /// `https://api.github.com`, or `https://HOST/api/v3` for GitHub Enterprise Server.
        public var apiURL: String
        public var token: GitHubToken?
        /// A GitHub App installation to authenticate as, instead of a token (never both).
        public var app: GitHubApp?
        public var userAgent = "commits-mirror/\(MirrorVersion.current) (+https://github.com/commits-mirror)"
        public var retry = RetryPolicy()
        /// On primary-limit exhaustion: wait for the reset (true) or fail at once (false).
        public var waitForRateLimit = false
        /// Requests to leave unspent for other tools sharing the token: when GitHub
        /// reports this many or fewer remaining, behave as if the limit were exhausted.
        public var rateLimitReserve = 0
        public var http = HTTPClient.Configuration()
        /// How long a request may go without receiving a byte, set here so that callers need not import Curl.
        public var stallTimeout: Duration {
            get { http.stallTimeout }
            set { http.stallTimeout = newValue }
        }

        public init(apiURL: String = GitHubClient.defaultAPIURL, token: GitHubToken? = nil, app: GitHubApp? = nil) {
            self.apiURL = apiURL.hasSuffix("/") ? String(apiURL.dropLast()) : apiURL
            self.token = token
            self.app = app
        }

        /// Whether requests carry a credential (a 304 is then free, GitHub's rule).
        public var isAuthenticated: Bool { token != nil || app != nil }

        /// Where the credential comes from, for errors, logs and `status`:
        /// "file /etc/…/token", "GitHub App 12345 (key from …)"; never a secret.
        public var credentialSource: String? { token?.source ?? app?.source }

        /// The credential's kind without naming a place, for `/metrics` labels:
        /// `environment`, `file`, `credential`, `app`, or `none`.
        public var credentialKind: String { token?.kind.rawValue ?? (app != nil ? "app" : "none") }
    }

    public static let defaultAPIURL = "https://api.github.com"

    /// Counters for the one-line summary and the rate-limit budget.
    public struct Usage: Sendable, Equatable {
        public var requests = 0
        public var notModified = 0
        public var retries = 0
        public var rateLimit: RateLimitStatus?
        /// Requests (retries included) by what they were for.
        public var byKind: [RequestKind: RequestTally] = [:]

        /// The requests made since `before` (an earlier reading of the same client), by kind.
        public func byKind(since before: Usage) -> [RequestKind: RequestTally] {
            byKind.reduce(into: [:]) { result, entry in
                let delta = entry.value - (before.byKind[entry.key] ?? RequestTally())
                if delta.requests > 0 { result[entry.key] = delta }
            }
        }
    }

    public let configuration: Configuration
    let http: HTTPClient
    let logger: Logger
    /// `nil` for an API URL that is not http(s) or holds credentials: then no
    /// request carries the token and no redirect is followed.
    let origin: APIOrigin?
    let usageBox = Mutex(Usage())
    /// Every credential this client sends, removed from whatever a server says
    /// (`redact(_:)`); register tokens minted later (App installation tokens, JWTs) here.
    public let redactor: SecretRedactor
    /// For a client `countingSeparately`: the one it shares transfers with,
    /// which counts its requests too and holds the token's rate-limit status.
    let shared: GitHubClient?

    /// Starts loading the HTTP library (libcurl) on a thread of its own, for a
    /// command that reads its configuration and opens its store before its first
    /// client exists: see `HTTPClient.loadLibraryInBackground`.
    public static func loadHTTPLibraryInBackground() {
        HTTPClient.loadLibraryInBackground()
    }

    /// Waits for that load: a command calls it before it ends, however it ends, so
    /// the process never exits while another thread is still initialising libcurl
    /// and its TLS library (their exit handlers would run beside that).
    public static func waitForHTTPLibrary() {
        HTTPClient.waitForLibrary()
    }

    public init(configuration: Configuration, logger: Logger) throws {
        self.configuration = configuration
        self.redactor = SecretRedactor(secrets: configuration.token.map { [$0.value] } ?? [])
        self.http = try HTTPClient(configuration: configuration.http)
        self.logger = logger
        self.origin = APIOrigin(url: configuration.apiURL)
        self.shared = nil
    }

    private init(sharing client: GitHubClient) {
        configuration = client.configuration
        http = client.http
        logger = client.logger
        origin = client.origin
        redactor = client.redactor
        shared = client.shared ?? client
    }

    /// The same client for one of several syncs running side by side: the same
    /// transfers (one request at a time for the token), configuration and
    /// rate-limit status, but a `usage` that counts only the requests made
    /// through it (so a sync's report counts its own); each is counted in this
    /// client's `usage` as well.
    public func countingSeparately() -> GitHubClient {
        GitHubClient(sharing: self)
    }

    /// Requests made through this client; the rate limit as the token last reported it.
    public var usage: Usage {
        var usage = usageBox.withLock { $0 }
        if let shared { usage.rateLimit = shared.usage.rateLimit }
        return usage
    }

    /// Applies `change` to this client's counters and to those of the client it shares transfers with.
    func count(_ change: (inout Usage) -> Void) {
        usageBox.withLock { change(&$0) }
        shared?.usageBox.withLock { change(&$0) }
    }

    // MARK: - Endpoints

    public struct RepositoryInfo: Decodable, Sendable {
        public var id: Int
        public var fullName: String
        public var defaultBranch: String
        public var htmlURL: String?
        /// Where git fetches the repository from (GitHub Enterprise's own host included).
        public var cloneURL: String?

        enum CodingKeys: String, CodingKey {
            case id
            case fullName = "full_name"
            case defaultBranch = "default_branch"
            case htmlURL = "html_url"
            case cloneURL = "clone_url"
        }
    }

    /// `GET /repos/{owner}/{repo}`: id, current full name (after renames), default branch.
    public func repository(_ name: RepositoryName) async throws -> RepositoryInfo {
        let url = "\(configuration.apiURL)/repos/\(name.owner)/\(name.name)"
        let response = try await send(url: url, kind: .repositoryLookup, repository: name) { response in
            try PayloadDecoder().decode(RepositoryInfo.self, from: response.body)
        }
        return response.value
    }

    public enum HeadProbe: Sendable, Equatable {
        /// The branch still points at the known head (answered 304).
        case unchanged
        case moved(sha: String)
        /// The repository has no commits yet (409).
        case emptyRepository
    }

    /// Learns the branch head for one cheap request: `Accept: application/vnd.github.sha`
    /// with `If-None-Match: "<known sha>"` answers 304 when nothing moved (free when authenticated).
    public func branchHead(_ name: RepositoryName, branch: String, knownHead: String?) async throws -> HeadProbe {
        let url = "\(configuration.apiURL)/repos/\(name.owner)/\(name.name)/commits/\(percentEncodedPathSegment(branch))"
        var headers: HTTPHeaders = [("Accept", "application/vnd.github.sha")]
        if let knownHead { headers.add(name: "If-None-Match", value: "\"\(knownHead)\"") }
        do {
            let result = try await send(url: url, headers: headers, kind: .poll, repository: name) { response -> HeadProbe in
                if response.status == 304 { return .unchanged }
                let sha = String(decoding: response.body, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
                guard sha.count == 40, sha.utf8.allSatisfy(\.isHexDigit) else {
                    throw PayloadError("expected a 40-hex sha, got \(sha.prefix(60).debugDescription)")
                }
                return .moved(sha: sha.lowercased())
            }
            return result.value
        } catch GitHubError.validationFailed {
            throw GitHubError.branchNotFound(repository: name.description, branch: branch)
        } catch GitHubError.emptyRepository {
            return .emptyRepository
        }
    }

    /// The first page of the listing pinned to `sha`; later pages come from `Link`.
    public func firstCommitsPageURL(_ name: RepositoryName, sha: String) -> String {
        "\(configuration.apiURL)/repos/\(name.owner)/\(name.name)/commits?sha=\(sha)&per_page=100"
    }

    public struct CommitsPage: Sendable {
        public var commits: [Commit]
        public var links: LinkHeader?
        /// The page number of `rel="last"`, for progress.
        public var lastPageNumber: Int?
    }

    /// One page of `GET …/commits`, decoded completely or not at all (a body that
    /// does not decode, e.g. truncated, is retried like any transient failure).
    public func commitsPage(url: String, repository: RepositoryName) async throws -> CommitsPage {
        try await send(url: url, kind: .page, repository: repository) { try ReceivedCommitsPage($0, redact: redact).decoded() }.value
    }

    /// A page of `GET …/commits` as it arrived: its links read, its body not yet decoded.
    /// What comes next is known before the body is decoded, so the next request
    /// can go out while this one is decoded (`PrefetchedPage`).
    public struct ReceivedCommitsPage: Sendable {
        public var links: LinkHeader?
        var body: [UInt8]

        init(_ response: HTTPResponse, redact: (String) -> String) throws {
            links = try LinkHeader.of(response.headers["link"], redact: redact)
            body = response.body
        }

        /// The page decoded, completely or not at all.
        public func decoded() throws -> CommitsPage {
            let commits = try PayloadDecoder().decodeCommits(body)
            return CommitsPage(commits: commits, links: links, lastPageNumber: links?.last.flatMap(LinkHeader.pageNumber))
        }
    }

    /// One page of `GET …/commits`, received but not decoded: a body that does not
    /// decode is the caller's to ask again for (through `commitsPage`).
    public func receiveCommitsPage(url: String, repository: RepositoryName) async throws -> ReceivedCommitsPage {
        try await send(url: url, kind: .page, repository: repository) { try ReceivedCommitsPage($0, redact: redact) }.value
    }

    private func percentEncodedPathSegment(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: "/?#"))) ?? text
    }
}
