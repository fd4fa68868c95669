import Curl
import Foundation
import MirrorModel

extension RateLimitStatus {
    /// `nil` when the response carried no rate-limit headers (e.g. GHES with limits off).
    public init?(headers: HTTPHeaders) {
        guard let limit = headers["x-ratelimit-limit"].flatMap(Int.init),
            let remaining = headers["x-ratelimit-remaining"].flatMap(Int.init)
        else { return nil }
        // A reset past the year 5000 (or not finite) is garbage, not a time to wait for or print.
        let resetAt = headers["x-ratelimit-reset"].flatMap(TimeInterval.init).flatMap { $0.isFinite && abs($0) < 1e11 ? $0 : nil }
            .map(Date.init(timeIntervalSince1970:))
        self.init(
            limit: limit, remaining: remaining, used: headers["x-ratelimit-used"].flatMap(Int.init), resetAt: resetAt,
            resource: headers["x-ratelimit-resource"])
    }
}
