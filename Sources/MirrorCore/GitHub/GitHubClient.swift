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
        public var userAgent = "commits-mirror/\(MirrorVersion.current) (+https://github.com/commits-mirror)"
        public var retry = RetryPolicy()
        /// On primary-limit exhaustion: wait for the reset (true) or fail at once (false).
        public var waitForRateLimit = false
        /// Requests to leave unspent for other tools sharing the token: when GitHub
        /// reports this many or fewer remaining, behave as if the limit were exhausted.
        public var rateLimitReserve = 0
        public var http = HTTPClient.Configuration()

        public init(apiURL: String = GitHubClient.defaultAPIURL, token: GitHubToken? = nil) {
            self.apiURL = apiURL.hasSuffix("/") ? String(apiURL.dropLast()) : apiURL
            self.token = token
        }
    }

    public static let defaultAPIURL = "https://api.github.com"

    /// Counters for the one-line summary and the rate-limit budget.
    public struct Usage: Sendable, Equatable {
        public var requests = 0
        public var notModified = 0
        public var retries = 0
        public var rateLimit: RateLimitStatus?
    }

    public let configuration: Configuration
    private let http: HTTPClient
    private let logger: Logger
    /// `nil` for an API URL that is not http(s) or holds credentials: then no
    /// request carries the token and no redirect is followed.
    private let origin: APIOrigin?
    private let usageBox = Mutex(Usage())

    public init(configuration: Configuration, logger: Logger) throws {
        self.configuration = configuration
        self.http = try HTTPClient(configuration: configuration.http)
        self.logger = logger
        self.origin = APIOrigin(url: configuration.apiURL)
    }

    public var usage: Usage { usageBox.withLock { $0 } }

    // MARK: - Endpoints

    public struct RepositoryInfo: Decodable, Sendable {
        public var id: Int
        public var fullName: String
        public var defaultBranch: String
        public var htmlURL: String?

        enum CodingKeys: String, CodingKey {
            case id
            case fullName = "full_name"
            case defaultBranch = "default_branch"
            case htmlURL = "html_url"
        }
    }

    /// `GET /repos/{owner}/{repo}`: id, current full name (after renames), default branch.
    public func repository(_ name: RepositoryName) async throws -> RepositoryInfo {
        let url = "\(configuration.apiURL)/repos/\(name.owner)/\(name.name)"
        let response = try await send(url: url, repository: name) { response in
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
            let result = try await send(url: url, headers: headers, repository: name) { response -> HeadProbe in
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
        let result = try await send(url: url, repository: repository) { response -> CommitsPage in
            let links: LinkHeader?
            if let header = response.headers["link"].map(redact) {
                guard let parsed = LinkHeader(header) else {
                    throw PayloadError("malformed Link header: \(header.prefix(200))")
                }
                links = parsed
            } else {
                links = nil
            }
            let commits = try PayloadDecoder().decodeCommits(response.body)
            let lastPage = links?.last.flatMap { URLComponents(string: $0)?.queryItems?.last { $0.name == "page" }?.value }.flatMap(Int.init)
            return CommitsPage(commits: commits, links: links, lastPageNumber: lastPage)
        }
        return result.value
    }

    // MARK: - The request loop

    struct PayloadError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    struct Result<Value> {
        var value: Value
        var finalURL: String
    }

    /// Sends a GET with redirects, retries and rate-limit handling, then parses
    /// the final 2xx/304 response with `parse` (a parse failure is retried).
    /// The one place errors leave the client: each is redacted here.
    func send<Value>(
        url originalURL: String,
        headers extraHeaders: HTTPHeaders = [],
        repository: RepositoryName,
        parse: (HTTPResponse) throws -> Value
    ) async throws -> Result<Value> {
        do {
            return try await sendUnredacted(url: originalURL, headers: extraHeaders, repository: repository, parse: parse)
        } catch let error as GitHubError {
            throw error.redacted(redact)
        }
    }

    private func sendUnredacted<Value>(
        url originalURL: String,
        headers extraHeaders: HTTPHeaders,
        repository: RepositoryName,
        parse: (HTTPResponse) throws -> Value
    ) async throws -> Result<Value> {
        var url = originalURL
        var redirects = 0
        var transientAttempts = 0
        var secondaryAttempts = 0
        var primaryAttempts = 0
        let policy = configuration.retry

        while true {
            try Task.checkCancellation()
            try await respectReserve(url: url)
            let request = HTTPRequest(url: url, headers: requestHeaders(for: url, extra: extraHeaders))
            let response: HTTPResponse
            do {
                response = try await http.send(request)
            } catch let error as CurlError {
                if error.isCancellation { throw CancellationError() }
                // Another attempt would only read the same oversized body again.
                if error.isBodyTooLarge {
                    throw GitHubError.responseTooLarge(url: url, limit: configuration.http.maximumBodySize)
                }
                if error.isInvalidRequest {
                    throw GitHubError.transport(error, url: url, attempts: 1)
                }
                transientAttempts += 1
                guard transientAttempts < policy.maximumAttempts else {
                    throw GitHubError.transport(error, url: url, attempts: transientAttempts)
                }
                try await pause(policy.backoff(afterAttempt: transientAttempts), reason: "network error: \(error.message)", url: url)
                continue
            }
            record(response)

            switch response.status {
            case 200..<300, 304:
                do {
                    return Result(value: try parse(response), finalURL: url)
                } catch {
                    transientAttempts += 1
                    let detail = response.body.isEmpty && response.status != 304 ? "an empty body"
                        : (error as? PayloadError)?.description ?? describeDecodingError(error)
                    guard transientAttempts < policy.maximumAttempts else {
                        throw GitHubError.malformedResponse(url: url, detail: detail, attempts: transientAttempts)
                    }
                    try await pause(policy.backoff(afterAttempt: transientAttempts), reason: "unreadable response: \(detail)", url: url)
                }

            case 301, 302, 307, 308:
                redirects += 1
                guard redirects <= 5 else { throw GitHubError.tooManyRedirects(url: originalURL) }
                guard let location = response.headers["location"], !location.isEmpty else {
                    throw GitHubError.unexpectedStatus(status: response.status, url: url, message: "redirect without a Location")
                }
                // Only within the API origin: elsewhere (another host or port, http
                // under https, file:, a metadata address) is never requested at all.
                guard let target = Self.redirectTarget(location, from: url, origin: origin) else {
                    let shown = URL(string: location, relativeTo: URL(string: url))?.absoluteString ?? location
                    throw GitHubError.redirectRefused(from: APIOrigin.displayable(url), to: APIOrigin.displayable(shown),
                                                      origin: origin?.description ?? APIOrigin.displayable(configuration.apiURL))
                }
                logger.info("following redirect", metadata: [
                    "http.status": "\(response.status)", "http.from": "\(redact(url))", "http.to": "\(redact(target))",
                ])
                url = target

            case 401:
                if let token = configuration.token {
                    throw GitHubError.badCredentials(tokenSource: token.source)
                }
                throw GitHubError.unexpectedStatus(status: 401, url: url, message: errorMessage(response))

            case 403, 429:
                let message = errorMessage(response)
                let rate = RateLimitStatus(headers: response.headers)
                let retryAfter = response.headers["retry-after"].flatMap(Int.init)
                if rate?.remaining == 0 && retryAfter == nil {
                    let resetAt = rate?.resetAt
                    let exhausted = GitHubError.primaryRateLimit(resetAt: resetAt, authenticated: configuration.token != nil)
                    primaryAttempts += 1
                    guard configuration.waitForRateLimit, let resetAt, primaryAttempts < policy.maximumAttempts else {
                        throw exhausted
                    }
                    // A reset already past (clock skew, or a server that keeps saying 0)
                    // gets the growing backoff instead, so the retries stay bounded.
                    let untilReset = resetAt.timeIntervalSinceNow.rounded(.up) + 1
                    let cap = min(policy.maximumRateLimitWait, policy.maximumInlineWait)
                    guard untilReset <= Double(cap.components.seconds) else { throw exhausted }
                    let wait = max(Duration.seconds(max(0, untilReset)), policy.backoff(afterAttempt: primaryAttempts))
                    guard wait <= cap else { throw exhausted }
                    try await pause(wait, reason: "primary rate limit exhausted; waiting for reset", url: url)
                } else if retryAfter != nil || message.lowercased().contains("secondary rate limit")
                            || message.lowercased().contains("abuse") {
                    secondaryAttempts += 1
                    guard secondaryAttempts < policy.maximumAttempts else {
                        throw GitHubError.secondaryRateLimit(attempts: secondaryAttempts)
                    }
                    // Honour retry-after, but not past the caps: a longer wait is the
                    // caller's to schedule, not a sleep here.
                    let cap = min(policy.maximumSecondaryLimitWait, policy.maximumInlineWait)
                    if let retryAfter, Int64(retryAfter) > cap.components.seconds {
                        let seconds = min(retryAfter, 100 * 365 * 86_400)
                        throw GitHubError.retryAfterTooLong(retryAt: Date(timeIntervalSinceNow: TimeInterval(seconds)), limit: cap)
                    }
                    // Otherwise at least the minimum, doubling each time, up to the cap.
                    let wait = retryAfter.map { Duration.seconds(max(0, $0)) }
                        ?? min(policy.secondaryLimitDelay * (1 << min(secondaryAttempts - 1, 6)), policy.maximumSecondaryLimitWait)
                    guard wait <= cap else {
                        throw GitHubError.retryAfterTooLong(retryAt: Date(timeIntervalSinceNow: Double(wait.components.seconds)), limit: cap)
                    }
                    try await pause(wait, reason: "secondary rate limit", url: url)
                } else {
                    throw GitHubError.forbidden(url: url, message: message)
                }

            case 404:
                throw GitHubError.notFound(repository: repository.description, tokenSource: configuration.token?.source)

            case 409:
                throw GitHubError.emptyRepository(repository: repository.description)

            case 422:
                throw GitHubError.validationFailed(url: url, message: errorMessage(response))

            case 500..<600:
                transientAttempts += 1
                guard transientAttempts < policy.maximumAttempts else {
                    throw GitHubError.serverError(status: response.status, url: url, attempts: transientAttempts)
                }
                try await pause(policy.backoff(afterAttempt: transientAttempts), reason: "server error \(response.status)", url: url)

            default:
                throw GitHubError.unexpectedStatus(status: response.status, url: url, message: errorMessage(response))
            }
        }
    }

    /// Holds back when the last response said the budget is down to the reserve.
    private func respectReserve(url: String) async throws {
        guard configuration.rateLimitReserve > 0, let rate = usage.rateLimit,
              rate.remaining <= configuration.rateLimitReserve,
              let resetAt = rate.resetAt, resetAt > Date()
        else { return }
        let cap = min(configuration.retry.maximumRateLimitWait, configuration.retry.maximumInlineWait)
        guard configuration.waitForRateLimit, resetAt.timeIntervalSinceNow.rounded(.up) + 1 <= Double(cap.components.seconds)
        else {
            throw GitHubError.reserveReached(reserve: configuration.rateLimitReserve, resetAt: resetAt)
        }
        try await pause(.seconds(max(1, resetAt.timeIntervalSinceNow.rounded(.up) + 1)),
                        reason: "rate limit down to the reserve of \(configuration.rateLimitReserve)", url: url)
        usageBox.withLock { $0.rateLimit = nil }
    }

    func requestHeaders(for url: String, extra: HTTPHeaders = []) -> HTTPHeaders {
        var headers: HTTPHeaders = [
            ("Accept", "application/vnd.github+json"),
            ("X-GitHub-Api-Version", "2022-11-28"),
            ("User-Agent", configuration.userAgent),
        ]
        for (name, value) in extra {
            headers.remove(name: name)
            headers.add(name: name, value: value)
        }
        // The token goes only to the API origin: not to another host or port, nor
        // in clear text over http when the API is https.
        if let token = configuration.token, let origin, origin.contains(url) {
            headers.add(name: "Authorization", value: "Bearer \(token.value)")
        }
        return headers
    }

    private func record(_ response: HTTPResponse) {
        usageBox.withLock { usage in
            usage.requests += 1
            if response.status == 304 { usage.notModified += 1 }
            if let rate = RateLimitStatus(headers: response.headers) { usage.rateLimit = rate }
        }
    }

    private func pause(_ duration: Duration, reason: String, url: String) async throws {
        usageBox.withLock { $0.retries += 1 }
        logger.warning("retrying after a pause", metadata: [
            "retry.reason": "\(redact(reason))", "retry.delay": "\(duration)", "http.url": "\(redact(url))",
        ])
        try await Task.sleep(for: duration)
    }

    /// GitHub's `message`, plus which fields a 422 `errors[]` names.
    private func errorMessage(_ response: HTTPResponse) -> String {
        struct Body: Decodable {
            struct FieldError: Decodable { var field: String?; var code: String?; var message: String? }
            var message: String?
            var errors: [FieldError]?
        }
        if let body = try? JSONDecoder().decode(Body.self, from: Data(response.body)), let message = body.message {
            let details = (body.errors ?? []).map { error in
                [error.field.map { "parameter '\($0)'" }, error.code, error.message].compactMap { $0 }.joined(separator: ": ")
            }.filter { !$0.isEmpty }
            return oneLine(details.isEmpty ? message : "\(message) (\(details.joined(separator: "; ")))")
        }
        let text = String(decoding: response.body.prefix(200), as: UTF8.self)
        return text.isEmpty ? "no message" : oneLine(text)
    }

    /// Server text inside a one-line message: control characters (line breaks) become spaces.
    private func oneLine(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.map { $0.properties.generalCategory == .control ? " " : $0 }))
    }

    /// `text` with the token, raw or percent-encoded, replaced by `[REDACTED]`:
    /// applied to anything a server sent (messages, bodies, Link and Location
    /// URLs) before it goes into an error, a log line or the store. A token
    /// under 8 characters (never a real one; tests use "t") is left alone: it
    /// would match ordinary text and mangle every Link URL.
    public func redact(_ text: String) -> String {
        guard let token = configuration.token?.value, token.count >= 8 else { return text }
        var forms = [token]
        for allowed in [CharacterSet.alphanumerics, .urlQueryAllowed, .urlPathAllowed] {
            if let encoded = token.addingPercentEncoding(withAllowedCharacters: allowed) { forms.append(encoded) }
        }
        var result = text
        for form in Set(forms).sorted(by: { $0.count > $1.count }) {
            result = result.replacingOccurrences(of: form, with: "[REDACTED]", options: .caseInsensitive)
        }
        return result
    }

    /// Where a redirect may lead: `location` resolved against `url`, if on `origin`.
    static func redirectTarget(_ location: String, from url: String, origin: APIOrigin?) -> String? {
        origin?.resolve(location, against: url)
    }

    private func percentEncodedPathSegment(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: "/?#"))) ?? text
    }
}

func describeDecodingError(_ error: any Error) -> String {
    guard let error = error as? DecodingError else { return "\(error)" }
    func path(_ context: DecodingError.Context) -> String {
        context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
    }
    switch error {
    case .dataCorrupted(let context):
        return "invalid JSON at \(path(context).isEmpty ? "top level" : path(context)): \(context.debugDescription)"
    case .keyNotFound(let key, let context):
        return "missing field '\(key.stringValue)' at \(path(context))"
    case .typeMismatch(let type, let context):
        return "wrong type at \(path(context).isEmpty ? "top level" : path(context)) (expected \(type))"
    case .valueNotFound(let type, let context):
        return "null at \(path(context).isEmpty ? "top level" : path(context)) (expected \(type))"
    @unknown default:
        return "\(error)"
    }
}
