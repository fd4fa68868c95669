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
}
