import Curl
import Foundation

/// Rate limits as LIST-COMMITS.md §5 describes them (docs/GITHUB-API.md):
/// every wait is capped, and a wait past its cap is the caller's to schedule.
extension GitHubClient {
    /// How long to wait before retrying a 403/429 and why, or the error that ends the request.
    func rateLimitWait(_ response: HTTPResponse, url: String, attempts: inout Attempts) throws -> (Duration, String) {
        let message = errorMessage(response)
        let rate = RateLimitStatus(headers: response.headers)
        let retryAfter = response.headers["retry-after"].flatMap(Int.init)
        if rate?.remaining == 0 && retryAfter == nil {
            return (
                try primaryLimitWait(resetAt: rate?.resetAt, attempts: &attempts),
                "primary rate limit exhausted; waiting for reset"
            )
        }
        let lowered = message.lowercased()
        guard retryAfter != nil || lowered.contains("secondary rate limit") || lowered.contains("abuse") else {
            throw GitHubError.forbidden(url: url, message: message)
        }
        return (try secondaryLimitWait(retryAfter: retryAfter, attempts: &attempts), "secondary rate limit")
    }

    /// Exhausted: wait for the reset only when asked to, within one window, a
    /// bounded number of times (a reset already past gets the growing backoff).
    private func primaryLimitWait(resetAt: Date?, attempts: inout Attempts) throws -> Duration {
        let policy = configuration.retry
        let exhausted = GitHubError.primaryRateLimit(resetAt: resetAt, authenticated: configuration.isAuthenticated)
        attempts.primary += 1
        guard configuration.waitForRateLimit, let resetAt, attempts.primary < policy.maximumAttempts else { throw exhausted }
        let untilReset = resetAt.timeIntervalSinceNow.rounded(.up) + 1
        let cap = min(policy.maximumRateLimitWait, policy.maximumInlineWait)
        guard untilReset <= Double(cap.components.seconds) else { throw exhausted }
        let wait = max(Duration.seconds(max(0, untilReset)), policy.backoff(afterAttempt: attempts.primary))
        guard wait <= cap else { throw exhausted }
        return wait
    }

    /// `retry-after` as asked up to the cap; without one, at least the minimum,
    /// doubling each time. A longer ask is thrown, never slept.
    private func secondaryLimitWait(retryAfter: Int?, attempts: inout Attempts) throws -> Duration {
        let policy = configuration.retry
        attempts.secondary += 1
        guard attempts.secondary < policy.maximumAttempts else {
            throw GitHubError.secondaryRateLimit(attempts: attempts.secondary)
        }
        let cap = min(policy.maximumSecondaryLimitWait, policy.maximumInlineWait)
        if let retryAfter, Int64(retryAfter) > cap.components.seconds {
            let seconds = min(retryAfter, 100 * 365 * 86_400)
            throw GitHubError.retryAfterTooLong(retryAt: Date(timeIntervalSinceNow: TimeInterval(seconds)), limit: cap)
        }
        let wait =
            retryAfter.map { Duration.seconds(max(0, $0)) }
            ?? min(policy.secondaryLimitDelay * (1 << min(attempts.secondary - 1, 6)), policy.maximumSecondaryLimitWait)
        guard wait <= cap else {
            throw GitHubError.retryAfterTooLong(retryAt: Date(timeIntervalSinceNow: Double(wait.components.seconds)), limit: cap)
        }
        return wait
    }

    /// Holds back when the last response said the budget is down to the reserve.
    /// A conditional request with a token goes on: answered 304 it is free, and
    /// a poll that finds a change costs one point, the walk it starts being held back.
    func respectReserve(url: String, conditional: Bool) async throws {
        guard configuration.rateLimitReserve > 0, !(conditional && configuration.isAuthenticated), let rate = usage.rateLimit,
            rate.remaining <= configuration.rateLimitReserve,
            let resetAt = rate.resetAt, resetAt > Date()
        else { return }
        let cap = min(configuration.retry.maximumRateLimitWait, configuration.retry.maximumInlineWait)
        guard configuration.waitForRateLimit, resetAt.timeIntervalSinceNow.rounded(.up) + 1 <= Double(cap.components.seconds)
        else {
            throw GitHubError.reserveReached(reserve: configuration.rateLimitReserve, resetAt: resetAt)
        }
        try await pause(
            .seconds(max(1, resetAt.timeIntervalSinceNow.rounded(.up) + 1)),
            reason: "rate limit down to the reserve of \(configuration.rateLimitReserve)", url: url)
        count { $0.rateLimit = nil }
    }
}
