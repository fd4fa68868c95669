import Curl
import Foundation

/// Everything that can go wrong talking to GitHub, each with a message that
/// says what happened and what to do. No message ever contains a token value.
public enum GitHubError: Error, Sendable, CustomStringConvertible {
    case notFound(repository: String, tokenSource: String?)
    case branchNotFound(repository: String, branch: String)
    /// 409 "Git Repository is empty.": callers treat it as zero commits.
    case emptyRepository(repository: String)
    case badCredentials(tokenSource: String)
    case primaryRateLimit(resetAt: Date?, authenticated: Bool)
    case secondaryRateLimit(attempts: Int)
    /// GitHub asked for a pause (`retry-after`, or our secondary-limit backoff)
    /// longer than `limit`, the most this client sleeps inline; not waited for.
    case retryAfterTooLong(retryAt: Date, limit: Duration)
    /// The budget is down to the configured reserve (left for other users of the token).
    case reserveReached(reserve: Int, resetAt: Date)
    case forbidden(url: String, message: String)
    case validationFailed(url: String, message: String)
    case serverError(status: Int, url: String, attempts: Int)
    case transport(CurlError, url: String, attempts: Int)
    case malformedResponse(url: String, detail: String, attempts: Int)
    case tooManyRedirects(url: String)
    /// A redirect leading outside the API origin; never requested. URLs as `APIOrigin.displayable` shows them.
    case redirectRefused(from: String, to: String, origin: String)
    /// `Link: rel="next"` pointed back at a page already read in this walk.
    case paginationLoop(url: String)
    /// The body passed `HTTPClient.Configuration.maximumBodySize`; not retried.
    case responseTooLarge(url: String, limit: Int)
    case unexpectedStatus(status: Int, url: String, message: String)

    public var description: String {
        switch self {
        case .notFound(let repository, nil):
            return "repository \(repository) not found (or private, and no token was given)"
        case .notFound(let repository, let source?):
            return "repository \(repository) not found, or the token from \(source) cannot see it"
        case .branchNotFound(let repository, let branch):
            return "branch '\(branch)' not found in \(repository)"
        case .emptyRepository(let repository):
            return "repository \(repository) is empty (no commits yet)"
        case .badCredentials(let source):
            return "GitHub rejected the token from \(source) (401 Bad credentials): it is wrong, expired or revoked; replace it"
        case .primaryRateLimit(let resetAt, let authenticated):
            var text = "GitHub API rate limit exhausted"
            if let resetAt {
                let minutes = max(0, Int((resetAt.timeIntervalSinceNow / 60).rounded(.up)))
                text += "; it resets at \(ISO8601Timestamp.format(resetAt)) (in \(minutes) min)"
            }
            if !authenticated { text += " (unauthenticated: 60 requests/hour; a token gets 5,000)" }
            return text
        case .reserveReached(let reserve, let resetAt):
            return
                "stopped to keep the rate-limit reserve of \(plural(reserve, "request")); the limit resets at \(ISO8601Timestamp.format(resetAt))"
        case .secondaryRateLimit(let attempts):
            return "GitHub's secondary rate limit kept refusing requests after \(attempts) attempts; wait a few minutes and retry"
        case .retryAfterTooLong(let retryAt, let limit):
            let minutes = max(0, Int((retryAt.timeIntervalSinceNow / 60).rounded(.up)))
            return
                "GitHub's secondary rate limit asks to retry after \(ISO8601Timestamp.format(retryAt)) (in \(minutes) min), longer than the \(DurationText.format(limit)) this client waits; retry later, after that time"
        case .forbidden(let url, let message):
            return "GitHub refused the request (403: \(message)) for \(url)"
        case .validationFailed(let url, let message):
            return "GitHub rejected a request parameter (422: \(message)) for \(url)"
        case .serverError(let status, let url, let attempts):
            return "GitHub answered \(status) for \(url) after \(plural(attempts, "attempt")); it is having trouble, retry later"
        case .transport(let error, let url, let attempts):
            return "could not reach \(url) after \(plural(attempts, "attempt")): \(error.message)"
        case .malformedResponse(let url, let detail, let attempts):
            return "GitHub sent a response that could not be read for \(url) after \(plural(attempts, "attempt")): \(detail)"
        case .paginationLoop(let url):
            return "GitHub's pagination looped back to \(url), a page already read; stopped (is a proxy rewriting Link headers?)"
        case .tooManyRedirects(let url):
            return "too many redirects starting at \(url)"
        case .redirectRefused(let from, let to, let origin):
            return
                "refused a redirect from \(from) to \(to): it leads outside the API origin \(origin), where requests and the token never go (a proxy or server is redirecting elsewhere)"
        case .responseTooLarge(let url, let limit):
            return "the response for \(url) was larger than \(limit) bytes, the most this mirror reads (a page of commits is far smaller)"
        case .unexpectedStatus(let status, let url, let message):
            return "GitHub answered \(status) for \(url): \(message)"
        }
    }

    /// True for errors another attempt later may fix (used for exit codes).
    public var isRateLimit: Bool {
        switch self {
        case .primaryRateLimit, .secondaryRateLimit, .retryAfterTooLong, .reserveReached: return true
        default: return false
        }
    }

    /// The same error with every text payload (server messages, URLs, curl's
    /// text) passed through `redact`: the single mapping `GitHubClient` applies
    /// to everything it throws.
    public func redacted(_ redact: (String) -> String) -> GitHubError {
        switch self {
        case .notFound, .branchNotFound, .emptyRepository, .badCredentials, .primaryRateLimit, .secondaryRateLimit,
            .retryAfterTooLong, .reserveReached:
            // Names from our own configuration, numbers and dates: nothing a server wrote.
            return self
        case .forbidden(let url, let message):
            return .forbidden(url: redact(url), message: redact(message))
        case .validationFailed(let url, let message):
            return .validationFailed(url: redact(url), message: redact(message))
        case .serverError(let status, let url, let attempts):
            return .serverError(status: status, url: redact(url), attempts: attempts)
        case .transport(let error, let url, let attempts):
            return .transport(error.mapMessage(redact), url: redact(url), attempts: attempts)
        case .malformedResponse(let url, let detail, let attempts):
            return .malformedResponse(url: redact(url), detail: redact(detail), attempts: attempts)
        case .tooManyRedirects(let url):
            return .tooManyRedirects(url: redact(url))
        case .redirectRefused(let from, let to, let origin):
            return .redirectRefused(from: redact(from), to: redact(to), origin: redact(origin))
        case .paginationLoop(let url):
            return .paginationLoop(url: redact(url))
        case .responseTooLarge(let url, let limit):
            return .responseTooLarge(url: redact(url), limit: limit)
        case .unexpectedStatus(let status, let url, let message):
            return .unexpectedStatus(status: status, url: redact(url), message: redact(message))
        }
    }
}
