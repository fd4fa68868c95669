import Foundation
import SQLite

extension MirrorReader {
    /// The newest commit row id (0 for an empty store): where `follow` starts.
    public func latestCommitStoreID() throws -> Int64 {
        Int64(try db.scalarInt("SELECT coalesce(max(id), 0) FROM commits") ?? 0)
    }

    /// Following a query: waits for commits stored after row `start` that match
    /// `filter`, and hands each to `body` in the order they were stored, until
    /// `isStopped()` says so. Between checks it sleeps; a check is one
    /// `PRAGMA data_version` (it changes when another connection commits), so
    /// an idle follower costs next to nothing.
    public func follow(
        _ filter: CommitFilter, after start: Int64, interval: Duration = .milliseconds(100),
        isStopped: () -> Bool, _ body: ([CommitSummary]) throws -> Void
    ) throws {
        var seen = start
        var version = try dataVersion()
        var filter = filter
        filter.limit = nil
        while !isStopped() {
            Thread.sleep(forTimeInterval: Double(interval.components.attoseconds) / 1e18 + Double(interval.components.seconds))
            let current = try dataVersion()
            guard current != version else { continue }
            version = current
            let newest = try latestCommitStoreID()
            guard newest > seen else { continue }
            filter.storedAfter = seen
            filter.storedThrough = newest
            let arrived = try commits(matching: filter).sorted { $0.storeID < $1.storeID }
            seen = newest
            if !arrived.isEmpty { try body(arrived) }
        }
    }

    private func dataVersion() throws -> Int {
        try db.scalarInt("PRAGMA data_version") ?? 0
    }
}
