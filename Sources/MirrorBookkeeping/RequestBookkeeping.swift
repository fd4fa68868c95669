import Foundation
import MirrorCore

/// What each token spent, by minute and kind of request (`request_counts`).
extension SQLBookkeeping {
    /// Adds `tallies` to the minute of `date` for `token` (where the token came
    /// from, never its value), and prunes minutes older than a day.
    public func recordRequests(_ tallies: [RequestKind: RequestTally], token: String, at date: Date) throws {
        guard !tallies.isEmpty else { return }
        let minute = ISO8601Timestamp.format(Date(timeIntervalSince1970: (date.timeIntervalSince1970 / 60).rounded(.down) * 60))
        try write {
            for (kind, tally) in tallies.sorted(by: { $0.key < $1.key }) {
                try session.run(
                    RequestStatements.add, [token, minute, kind.rawValue, tally.requests, tally.notModified, tally.points])
            }
            try session.run(
                RequestStatements.prune, [ISO8601Timestamp.format(date.addingTimeInterval(-RequestStatements.kept))])
        }
    }
}

enum RequestStatements {
    /// How long spent requests are kept: `status` reports the last hour.
    static let kept: TimeInterval = 24 * 3600

    static let add = PortableSQL(
        """
        INSERT INTO request_counts (token, minute, kind, requests, not_modified, points) VALUES (?, ?, ?, ?, ?, ?)
        ON CONFLICT (token, minute, kind) DO UPDATE SET
            requests = request_counts.requests + excluded.requests,
            not_modified = request_counts.not_modified + excluded.not_modified,
            points = request_counts.points + excluded.points
        """)
    static let prune = PortableSQL("DELETE FROM request_counts WHERE minute < ?")
}
