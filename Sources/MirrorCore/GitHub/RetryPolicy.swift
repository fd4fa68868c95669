/// How hard to try before giving up on a request, and how long to wait.
public struct RetryPolicy: Sendable {
    /// Attempts per request for transient failures (5xx, resets, timeouts, truncated bodies).
    public var maximumAttempts = 5
    /// First backoff; doubles each attempt, jittered, up to `maximumDelay`.
    public var baseDelay: Duration = .seconds(1)
    public var maximumDelay: Duration = .seconds(30)
    /// Wait after a secondary-limit refusal without `retry-after` (GitHub: at least 60 s).
    public var secondaryLimitDelay: Duration = .seconds(60)
    /// Longest single wait for a primary limit reset before giving up (only with
    /// `waitForRateLimit`): one hourly window plus slack. A reset further away is
    /// a server's mistake or a lie, not something to sleep through.
    public var maximumRateLimitWait: Duration = .seconds(3700)
    /// Longest secondary-limit pause: a larger `retry-after` is not slept but
    /// thrown at once as `GitHubError.retryAfterTooLong` (a rate-limit error, for the caller to schedule),
    /// and the doubling backoff without `retry-after` stops growing here.
    public var maximumSecondaryLimitWait: Duration = .seconds(15 * 60)
    /// Longest any rate-limit pause may be inside one request; a longer one throws
    /// the rate-limit error instead. A service lowers it (to a minute) so its
    /// scheduler, not a sleep inside one repository's sync, decides when to go on.
    public var maximumInlineWait: Duration = .seconds(3700)

    public init() {}

    /// Jittered exponential backoff for the given 1-based attempt: between half
    /// and all of `baseDelay` doubled per attempt, at most `maximumDelay`.
    /// (commitsd waits for an unreachable store on the same curve.)
    public func backoff(afterAttempt attempt: Int) -> Duration {
        let exponent = min(attempt - 1, 20)
        let ceiling = min(baseDelay * (1 << exponent), maximumDelay)
        let milliseconds = Int(ceiling.components.seconds * 1000 + ceiling.components.attoseconds / 1_000_000_000_000_000)
        return .milliseconds(Int.random(in: (milliseconds / 2)...max(milliseconds / 2, milliseconds)))
    }
}
