// GitHub's primary rate limit: a budget of points per bucket (token or client IP) that refills
// all at once when the bucket's window, started by its first request, ends.

import Foundation

struct RateStatus: Sendable, Equatable {
    var limit: Int
    var used: Int
    /// Epoch seconds when the window ends.
    var reset: Int64
    var remaining: Int { max(0, limit - used) }
}

struct RateLimiter: Sendable {
    struct Bucket: Sendable {
        var label: String
        var limit: Int
        var used = 0
        var resetAt: Double
    }

    /// Window length in seconds.
    let window: Double
    /// Keyed by the full token or IP; `label` is the redacted name shown in stats.
    private var buckets: [String: Bucket] = [:]

    init(window: Duration) {
        let (seconds, attoseconds) = window.components
        self.window = Double(seconds) + Double(attoseconds) * 1e-18
    }

    /// The bucket's state without spending anything.
    mutating func status(key: String, label: String, limit: Int, now: Double = Self.now()) -> RateStatus {
        Self.status(of: refreshed(key: key, label: label, limit: limit, now: now))
    }

    /// Spends one point; nil when the budget is exhausted.
    mutating func charge(key: String, label: String, limit: Int, now: Double = Self.now()) -> RateStatus? {
        var bucket = refreshed(key: key, label: label, limit: limit, now: now)
        guard bucket.used < bucket.limit else { return nil }
        bucket.used += 1
        buckets[key] = bucket
        return Self.status(of: bucket)
    }

    /// Gives back a point charged for a request that turned out to be free (an authorized 304).
    mutating func refund(key: String) -> RateStatus? {
        guard var bucket = buckets[key] else { return nil }
        bucket.used = max(0, bucket.used - 1)
        buckets[key] = bucket
        return Self.status(of: bucket)
    }

    /// Points used per label in buckets whose window is still open.
    func usedByLabel(now: Double = Self.now()) -> [String: Int] {
        var result = [String: Int]()
        for bucket in buckets.values where bucket.resetAt > now && bucket.used > 0 {
            result[bucket.label, default: 0] += bucket.used
        }
        return result
    }

    mutating func removeAll() { buckets.removeAll() }

    private mutating func refreshed(key: String, label: String, limit: Int, now: Double) -> Bucket {
        if let bucket = buckets[key], bucket.resetAt > now { return bucket }
        let fresh = Bucket(label: label, limit: limit, resetAt: now + window)
        buckets[key] = fresh
        return fresh
    }

    private static func status(of bucket: Bucket) -> RateStatus {
        RateStatus(limit: bucket.limit, used: bucket.used, reset: Int64(bucket.resetAt.rounded(.up)))
    }

    static func now() -> Double { Date().timeIntervalSince1970 }
}
