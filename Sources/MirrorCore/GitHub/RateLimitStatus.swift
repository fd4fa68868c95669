import Curl
import Foundation

/// GitHub's `x-ratelimit-*` headers as last seen (LIST-COMMITS.md §5).
public struct RateLimitStatus: Sendable, Equatable, Codable {
    public var limit: Int
    public var remaining: Int
    public var used: Int?
    public var resetAt: Date?
    public var resource: String?

    public init(limit: Int, remaining: Int, used: Int? = nil, resetAt: Date? = nil, resource: String? = nil) {
        self.limit = limit
        self.remaining = remaining
        self.used = used
        self.resetAt = resetAt
        self.resource = resource
    }

    /// `nil` when the response carried no rate-limit headers (e.g. GHES with limits off).
    public init?(headers: HTTPHeaders) {
        guard let limit = headers["x-ratelimit-limit"].flatMap(Int.init),
            let remaining = headers["x-ratelimit-remaining"].flatMap(Int.init)
        else { return nil }
        self.limit = limit
        self.remaining = remaining
        self.used = headers["x-ratelimit-used"].flatMap(Int.init)
        // A reset past the year 5000 (or not finite) is garbage, not a time to wait for or print.
        self.resetAt = headers["x-ratelimit-reset"].flatMap(TimeInterval.init).flatMap { $0.isFinite && abs($0) < 1e11 ? $0 : nil }
            .map(Date.init(timeIntervalSince1970:))
        self.resource = headers["x-ratelimit-resource"]
    }
}
