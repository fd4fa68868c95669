import Foundation
import MirrorBookkeeping
import MirrorCore
import SQLite

/// What each token spent in the last hour (`request_counts`), for `status --requests`.
extension MirrorReader {
    /// What each token spent in the 60 minutes before `now` (the current minute
    /// included), by token and kind; kinds this version does not know are left out.
    public func spentRequests(inHourBefore now: Date = Date()) throws -> [SpentRequests] {
        let since = ISO8601Timestamp.format(Date(timeIntervalSince1970: (now.timeIntervalSince1970 / 60).rounded(.down) * 60 - 59 * 60))
        return try db.prepare(
            """
            SELECT token, kind, sum(requests), sum(not_modified), sum(points) FROM request_counts
            WHERE minute >= ? GROUP BY token, kind ORDER BY token
            """
        ).bind([since]).map { row -> SpentRequests? in
            guard let kind = RequestKind(rawValue: row.string(1)) else { return nil }
            return SpentRequests(
                token: row.string(0), kind: kind,
                tally: RequestTally(requests: row.int(2), notModified: row.int(3), points: row.int(4)))
        }.compactMap { $0 }.sorted { ($0.token, $0.kind) < ($1.token, $1.kind) }
    }
}
