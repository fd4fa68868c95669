import Foundation
import MirrorCore
import SQLite

/// What each token spent, by minute and kind of request (`request_counts`).
extension MirrorStore {
    /// How long spent requests are kept: `status` reports the last hour.
    static let requestCountsKept: TimeInterval = 24 * 3600

    /// Adds `tallies` to the minute of `date` for `token` (where the token came
    /// from, never its value), and prunes minutes older than a day.
    public func recordRequests(_ tallies: [RequestKind: RequestTally], token: String, at date: Date) throws {
        guard !tallies.isEmpty else { return }
        let minute = ISO8601Timestamp.format(Date(timeIntervalSince1970: (date.timeIntervalSince1970 / 60).rounded(.down) * 60))
        try write {
            for (kind, tally) in tallies.sorted(by: { $0.key < $1.key }) {
                try db.execute(
                    """
                    INSERT INTO request_counts (token, minute, kind, requests, not_modified, points) VALUES (?, ?, ?, ?, ?, ?)
                    ON CONFLICT (token, minute, kind) DO UPDATE SET
                        requests = requests + excluded.requests, not_modified = not_modified + excluded.not_modified,
                        points = points + excluded.points
                    """, [token, minute, kind.rawValue, tally.requests, tally.notModified, tally.points])
            }
            try db.execute(
                "DELETE FROM request_counts WHERE minute < ?",
                [ISO8601Timestamp.format(date.addingTimeInterval(-Self.requestCountsKept))])
        }
    }
}
